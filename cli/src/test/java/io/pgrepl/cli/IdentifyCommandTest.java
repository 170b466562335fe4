package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.IdentifySystem;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgUser;
import io.pgrepl.testkit.PgVersions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@code pgrepl identify URL} in-process against a SCRAM server of every major of
 * {@code -Dpg.versions}. Expected values come from IDENTIFY_SYSTEM run through the client on the
 * same server and from the kit's knowledge of the server version, not from the command.
 */
class IdentifyCommandTest {
    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The flat object the command prints, parsed with a real JSON parser; values as text (null kept). */
    private static Map<String, String> parseFlatObject(String line) {
        JsonNode n = Cli.parse(line);
        assertTrue(n.isObject(), line);
        Map<String, String> m = new LinkedHashMap<>();
        n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
        return m;
    }

    @TestFactory
    Stream<DynamicTest> identifyOnEveryMajor() {
        return PgVersions.matrix().stream().map(v -> dynamicTest("PG " + v, () -> {
            try (PgServer s = PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256).start()) {
                PgUser repl = s.replicationUser();
                Run r = run("identify", s.url(repl, "postgres"));
                assertEquals(0, r.exit(), r.err());
                String[] lines = r.out().strip().split("\n");
                assertEquals(1, lines.length, r.out());
                Map<String, String> json = parseFlatObject(lines[0]);
                assertEquals(java.util.List.of("systemid", "timeline", "xlogpos", "dbname", "server_version"), java.util.List.copyOf(json.keySet()));

                IdentifySystem expected;
                try (PgConnection c = PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                        .user(repl.name()).password(repl.password()).database("postgres").sslMode(SslMode.DISABLE)
                        .replication(ReplicationMode.DATABASE).build()).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
                    expected = c.identifySystem().toCompletableFuture().get(60, TimeUnit.SECONDS);
                }
                assertEquals(expected.systemId(), json.get("systemid"));
                assertTrue(json.get("systemid").matches("[1-9][0-9]{15,19}"), json.get("systemid"));
                assertEquals(Long.toString(expected.timeline()), json.get("timeline"));
                assertEquals("1", json.get("timeline"));
                long cliPos = Lsn.parse(json.get("xlogpos"));
                // WAL may move between the two calls (background activity), never backwards.
                assertNotEquals(0L, cliPos);
                assertTrue(Long.compareUnsigned(cliPos, expected.xlogPos()) <= 0, json.get("xlogpos") + " vs " + Lsn.format(expected.xlogPos()));
                assertEquals("postgres", json.get("dbname"));
                assertEquals(s.version(), json.get("server_version"));
                assertTrue(json.get("server_version").startsWith(v + "."), json.get("server_version"));
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> wrongPasswordIsOneLineWithout28P01Leak() {
        int v = PgVersions.defaultVersion();
        return Stream.of(dynamicTest("PG " + v + ": wrong password", () -> {
            try (PgServer s = PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256).start()) {
                String secret = "Wr0ng-pass-" + System.nanoTime();
                Run r = run("identify", s.url(new PgUser(s.replicationUser().name(), secret), "postgres"));
                assertNotEquals(0, r.exit());
                assertEquals("", r.out());
                String[] lines = r.err().strip().split("\n");
                assertEquals(1, lines.length, r.err());
                assertTrue(lines[0].contains("28P01"), lines[0]);
                assertFalse(r.err().contains(secret), r.err());
                assertFalse(r.out().contains(secret));
            }
        }));
    }
}
