package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** validate() against a real server: each bad setting is named with a clear message, and no password shows. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ValidationTest {
    private static final String SECRET = "S3cr3t-Pw!";
    private PgServer pg;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
    }

    @AfterAll
    void stop() {
        if (pg != null) pg.close();
    }

    private Map<String, String> good() {
        Map<String, String> c = new HashMap<>();
        c.put("database.url", "postgresql://" + pg.superuser().name() + "@127.0.0.1:" + pg.port() + "/postgres");
        c.put("database.password", pg.superuser().password());
        c.put("slot.name", "v_slot");
        c.put("publication.name", "v_pub");
        c.put("snapshot.mode", "never");
        c.put("topic.prefix", "v");
        return c;
    }

    private static Map<String, List<String>> errors(Config c) {
        Map<String, List<String>> m = new HashMap<>();
        for (ConfigValue v : c.configValues()) if (!v.errorMessages().isEmpty()) m.put(v.name(), v.errorMessages());
        return m;
    }

    @Test
    void goodConfigHasNoErrors() {
        assertEquals(Map.of(), errors(new PgreplSourceConnector().validate(good())));
    }

    @Test
    void badUrlIsNamed() {
        Map<String, String> c = good();
        c.put("database.url", "mysql://nope");
        Map<String, List<String>> e = errors(new PgreplSourceConnector().validate(c));
        assertEquals(List.of("database.url"), List.copyOf(e.keySet()));
        assertTrue(e.get("database.url").get(0).contains("postgresql://"), e.toString());
    }

    @Test
    void missingSlotWithoutCreateIsNamed() {
        Map<String, String> c = good();
        c.put("slot.create", "false");
        Map<String, List<String>> e = errors(new PgreplSourceConnector().validate(c));
        assertEquals(List.of("slot.name"), List.copyOf(e.keySet()));
        assertTrue(e.get("slot.name").get(0).contains("does not exist"), e.toString());
    }

    @Test
    void missingPublicationWithAutocreateDisabledIsNamed() {
        Map<String, String> c = good();
        c.put("publication.autocreate.mode", "disabled");
        Map<String, List<String>> e = errors(new PgreplSourceConnector().validate(c));
        assertEquals(List.of("publication.name"), List.copyOf(e.keySet()));
        assertTrue(e.get("publication.name").get(0).contains("\"v_pub\" does not exist"), e.toString());
    }

    @Test
    void everySnapshotModeIsAcceptedAndAnUnknownOneIsNamed() {
        Map<String, String> c = good();
        for (String mode : List.of("initial", "initial_only", "when_needed", "never")) {
            c.put("snapshot.mode", mode);
            assertEquals(Map.of(), errors(new PgreplSourceConnector().validate(c)), mode);
        }
        c.put("snapshot.mode", "sometimes");
        assertTrue(errors(new PgreplSourceConnector().validate(c)).containsKey("snapshot.mode"));
    }

    /** A password in the URL: wrong (authentication fails) and in a malformed URL; never in any answer. */
    @Test
    void passwordInUrlIsNeverEchoed() {
        for (String url : List.of(
                "postgresql://postgres:" + SECRET + "@127.0.0.1:" + pg.port() + "/postgres",
                "postgresql://postgres:" + SECRET + "@127.0.0.1:" + pg.port() + "/postgres?nosuchparam=1",
                "postgresql://postgres:" + SECRET + "@127.0.0.1:1/postgres",
                "host=127.0.0.1 port=" + pg.port() + " user=postgres password=" + SECRET + " bogus")) {
            Map<String, String> c = good();
            c.put("database.url", url);
            c.remove("database.password");
            Config result = new PgreplSourceConnector().validate(c);
            Map<String, List<String>> e = errors(result);
            assertFalse(e.isEmpty(), "expected an error for " + url.replace(SECRET, "****"));
            for (ConfigValue v : result.configValues()) {
                String shown = v.errorMessages() + " " + v.value() + " " + v;
                assertFalse(shown.contains(SECRET), "password shown for " + v.name() + ": " + shown.replace(SECRET, "<SECRET>"));
            }
        }
    }

    @Test
    void tasksMaxAboveOneGivesOneTask() {
        PgreplSourceConnector c = new PgreplSourceConnector();
        c.start(good());
        assertEquals(1, c.taskConfigs(4).size());
    }
}
