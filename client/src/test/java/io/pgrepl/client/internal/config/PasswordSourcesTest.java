package io.pgrepl.client.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pgrepl.client.internal.config.PasswordSources.Origin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordSourcesTest {
    @TempDir
    Path home;

    private void writePgpass(Path file, String content) throws Exception {
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    private static String pw(PasswordSources.Resolved r) {
        return r.password().map(b -> new String(b, StandardCharsets.UTF_8)).orElse(null);
    }

    @Test
    void parameterBeatsEnvironmentBeatsFile() throws Exception {
        writePgpass(home.resolve(".pgpass"), "*:*:*:*:from-file\n");
        Map<String, String> env = Map.of("PGPASSWORD", "from-env");
        ConnInfo withPw = ConnInfo.parse("host=h password=from-param");
        ConnInfo withoutPw = ConnInfo.parse("host=h");

        PasswordSources.Resolved r = PasswordSources.forConnection(withPw, "u", env::get, home);
        assertEquals("from-param", pw(r));
        assertEquals(Origin.PARAMETER, r.origin());

        r = PasswordSources.forConnection(withoutPw, "u", env::get, home);
        assertEquals("from-env", pw(r));
        assertEquals(Origin.ENVIRONMENT, r.origin());

        r = PasswordSources.forConnection(withoutPw, "u", k -> null, home);
        assertEquals("from-file", pw(r));
        assertEquals(Origin.PASSWORD_FILE, r.origin());
    }

    @Test
    void emptyParameterAndEnvironmentFallThrough() throws Exception {
        writePgpass(home.resolve(".pgpass"), "*:*:*:*:from-file\n");
        PasswordSources.Resolved r = PasswordSources.forConnection(ConnInfo.parse("password=''"), "u",
                Map.of("PGPASSWORD", "")::get, home);
        assertEquals("from-file", pw(r));
    }

    @Test
    void passfileParameterThenPgpassfileEnvironment() throws Exception {
        Path a = home.resolve("a");
        Path b = home.resolve("b");
        writePgpass(a, "*:*:*:*:from-a\n");
        writePgpass(b, "*:*:*:*:from-b\n");
        Map<String, String> env = Map.of("PGPASSFILE", b.toString());
        assertEquals("from-a", pw(PasswordSources.forConnection(ConnInfo.of(Map.of("passfile", a.toString())),
                "u", env::get, home)));
        assertEquals("from-b", pw(PasswordSources.forConnection(ConnInfo.parse(""), "u", env::get, home)));
    }

    @Test
    void fileMatchingUsesLibpqDefaults() throws Exception {
        writePgpass(home.resolve(".pgpass"), String.join("\n",
                "localhost:5432:alice:alice:default-db-is-user",
                "10.0.0.1:5432:db:alice:by-hostaddr",
                "h:6000:db:alice:explicit-port", ""));
        assertEquals("default-db-is-user", pw(PasswordSources.forConnection(ConnInfo.parse(""), "alice",
                k -> null, home)));
        assertEquals("by-hostaddr", pw(PasswordSources.forConnection(ConnInfo.parse("hostaddr=10.0.0.1 dbname=db"),
                "alice", k -> null, home)));
        assertEquals("explicit-port", pw(PasswordSources.forConnection(ConnInfo.parse("host=h port=6000 dbname=db"),
                "alice", k -> null, home)));
        assertEquals("default-db-is-user", pw(PasswordSources.forConnection(
                ConnInfo.parse("host=/var/run/postgresql"), "alice", k -> null, home)));
    }

    @Test
    void noPasswordAnywhere() {
        PasswordSources.Resolved r = PasswordSources.forConnection(ConnInfo.parse("host=h"), "u", k -> null, home);
        assertEquals(Optional.empty(), r.password());
        assertEquals(Origin.NONE, r.origin());
    }

    @Test
    void toStringNeverShowsThePassword() {
        PasswordSources.Resolved r = PasswordSources.forConnection(ConnInfo.parse("password=hunter2"), "u",
                k -> null, home);
        r.password();
        assertFalse(r.toString().contains("hunter2"));
    }
}
