package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.testkit.OAuthValidator;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import io.pgrepl.testkit.secrets.TestSecrets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OAuth bearer tokens from the command line against a real PostgreSQL 18 with {@code oauth}
 * pg_hba lines and the kit's validator module (which accepts {@link OAuthValidator#GOOD} and
 * {@link OAuthValidator#GOOD_2}): a token file, a token command asked once per connection,
 * {@code require_auth} from the URL, a rejected token and a failing command.
 */
class OAuthCommandsTest {
    private static final String REVOKED = "pgrepl-revoked-token.cli";
    private static PgServer server;
    private static OAuthValidator validator;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        // The leak check fails the module's run if any of them is printed.
        List.of(OAuthValidator.GOOD, OAuthValidator.GOOD_2, REVOKED).forEach(TestSecrets::register);
        Assumptions.assumeTrue(PgVersions.matrix().contains(18), "OAUTHBEARER needs PostgreSQL 18");
        validator = OAuthValidator.compile().orElse(null);
        Assumptions.assumeTrue(validator != null, "no C compiler (cc) to build the OAuth validator module");
        server = PgServer.builder().version(18).setting("oauth_validator_libraries", validator.module().toString()).start();
        server.sql("postgres", "CREATE ROLE oauth_cli LOGIN REPLICATION; CREATE TABLE ot (id int PRIMARY KEY);"
                + " GRANT SELECT ON ot TO oauth_cli; CREATE PUBLICATION ot_pub FOR TABLE ot");
        validator.trust(server, "oauth_cli");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (validator != null) validator.close();
    }

    private static String url(String query) {
        return "postgresql://oauth_cli@" + server.host() + ":" + server.port() + "/postgres?sslmode=disable" + query;
    }

    private static Path file(String name, String content) throws Exception {
        return Files.writeString(dir.resolve(name), content);
    }

    /** A shell command that counts its runs in {@code count} and prints the token in {@code token}. */
    private static String command(Path count, Path token) {
        return "echo run >> '" + count + "'; cat '" + token + "'";
    }

    private static long runs(Path count) throws Exception {
        return Files.exists(count) ? Files.readAllLines(count).size() : 0;
    }

    @Test
    void aTokenFileAndATokenCommandSignInAndStream() throws Exception {
        // As a secret manager writes it: with a line end, which is not part of the token.
        Path tokenFile = file("token", OAuthValidator.GOOD + "\n");
        Cli.Result created = run("slot", "create", url(""), "ot_slot", "--logical", "pgoutput", "--oauth-token-file", tokenFile.toString());
        assertEquals(0, created.rc(), created.err());
        assertEquals("ot_slot", Cli.parse(created.out()).get("slot_name").asText());
        assertEquals("oauth_cli", Cli.query(server, "SELECT r.rolname FROM pg_replication_slots s JOIN pg_database d"
                + " ON d.datname = s.database JOIN pg_roles r ON r.rolname = 'oauth_cli' WHERE s.slot_name = 'ot_slot'"));
        server.sql("postgres", "INSERT INTO ot SELECT generate_series(1, 5)");

        Path count = dir.resolve("runs");
        Path token2 = file("token2", OAuthValidator.GOOD_2);
        Cli.Result streamed = run("stream", url("&require_auth=oauth"), "-S", "ot_slot", "-P", "ot_pub", "--idle-exit", "1",
                "--oauth-token-command", command(count, token2));
        assertEquals(0, streamed.rc(), streamed.err());
        assertEquals(List.of("begin", "insert", "insert", "insert", "insert", "insert", "commit"), streamed.types(), streamed.out());
        assertEquals(1, runs(count), "the command ran once, for the one connection");
        for (Cli.Result r : List.of(created, streamed)) {
            assertFalse((r.out() + r.err()).contains("pgrepl-good-token"), r.err());
        }
    }

    @Test
    void requireAuthFromTheUrlRefusesOAuthBeforeTheCommandRuns() throws Exception {
        Path count = dir.resolve("refused-runs");
        Cli.Result r = run("slot", "list", url("&require_auth=scram-sha-256"), "--json",
                "--oauth-token-command", command(count, file("t3", OAuthValidator.GOOD)));
        assertEquals(1, r.rc(), r.err());
        assertTrue(r.err().contains("OAUTHBEARER") || r.err().contains("SASL"), r.err());
        assertEquals(0, runs(count), "the token command never ran");
    }

    @Test
    void aRejectedTokenOrAFailingCommandIsAClearErrorWithoutTheToken() throws Exception {
        Cli.Result rejected = run("slot", "list", url(""), "--json", "--oauth-token-file", file("revoked", REVOKED).toString());
        assertEquals(1, rejected.rc());
        assertTrue(rejected.err().contains(OAuthValidator.SCOPE), "says which scope the server wants: " + rejected.err());
        assertFalse(rejected.err().contains(REVOKED), rejected.err());

        Cli.Result failed = run("slot", "list", url(""), "--json", "--oauth-token-command", "echo half-a-token; exit 3");
        assertEquals(1, failed.rc());
        assertTrue(failed.err().contains("status 3"), failed.err());
        assertFalse(failed.err().contains("half-a-token"), failed.err());

        Cli.Result missing = run("slot", "list", url(""), "--json", "--oauth-token-file", dir.resolve("nowhere").toString());
        assertEquals(1, missing.rc());
        assertTrue(missing.err().contains("nowhere"), missing.err());

        Cli.Result both = run("slot", "list", url(""), "--oauth-token-file", "a", "--oauth-token-command", "b");
        assertEquals(2, both.rc(), both.err());
    }

    @Test
    void theEnvironmentGivesEveryCommandASource() throws Exception {
        ConnectionConfig plain = ConnectionConfig.parse(url(""));
        assertNull(OAuthTokens.fromEnvironment(plain, Map.of()).oauthTokenSource());
        Path f = file("env-token", OAuthValidator.GOOD);
        ConnectionConfig fromFile = OAuthTokens.fromEnvironment(plain, Map.of(OAuthTokens.FILE_ENV, f.toString()));
        assertNotNull(fromFile.oauthTokenSource());
        assertFalse(fromFile.toString().contains(OAuthValidator.GOOD), fromFile.toString());
        try (var c = IdentifyCommand.await(io.pgrepl.client.PgConnection.connect(fromFile))) {
            assertEquals("oauth_cli", IdentifyCommand.await(c.query("SELECT current_user")).singleRow().get(0));
        }
        assertThrows(IllegalStateException.class, () -> OAuthTokens.fromEnvironment(plain,
                Map.of(OAuthTokens.FILE_ENV, "a", OAuthTokens.COMMAND_ENV, "b")));
    }
}
