package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.testkit.PgServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code pgrepl slot} on 18 and 10, and the server's DETAIL in CLI errors. */
class SlotAndErrorsTest {
    @ParameterizedTest(name = "PG {0}")
    @ValueSource(ints = {18, 10})
    void slotCreateListDropAndDetail(int version) throws Exception {
        try (PgServer server = PgServer.builder().version(version).start()) {
            String url = Cli.url(server);
            Cli.Result created = run("slot", "create", url, "sl", "--logical", "pgoutput");
            assertEquals(0, created.rc(), created.err());
            assertEquals("sl", Cli.parse(created.out()).get("slot_name").asText());
            Cli.Result again = run("slot", "create", url, "sl", "--logical=pgoutput", "--if-not-exists");
            assertEquals(0, again.rc(), again.err());
            assertTrue(Cli.parse(again.out()).get("exists").asBoolean());
            assertEquals(1, run("slot", "create", url, "sl", "--logical", "pgoutput").rc(), "exists: a server error");
            server.sql("postgres", "CREATE TABLE big (id int); INSERT INTO big SELECT generate_series(1, 10000)");

            Cli.Result list = run("slot", "list", url);
            assertEquals(0, list.rc(), list.err());
            JsonNode slots = Cli.parse(list.out());
            assertEquals(1, slots.size());
            JsonNode s = slots.get(0);
            assertEquals("sl", s.get("slot_name").asText());
            assertFalse(s.get("active").asBoolean());
            assertTrue(s.get("active_pid").isNull());
            assertTrue(s.get("lag_bytes").isIntegralNumber() && s.get("lag_bytes").longValue() > 10_000,
                    "WAL written since the slot was created: " + s);
            if (version >= 13) {
                assertEquals("reserved", s.get("wal_status").asText());
                assertTrue(s.get("safe_wal_size").isNull(), "max_slot_wal_keep_size = -1");
            } else {
                assertFalse(s.has("wal_status"));
            }
            if (version >= 17) {
                assertTrue(s.get("invalidation_reason").isNull());
                assertFalse(s.get("failover").asBoolean());
                assertFalse(s.get("synced").asBoolean());
            } else {
                assertFalse(s.has("failover"));
            }
            Cli.Result dropped = run("slot", "drop", url, "sl");
            assertEquals(0, dropped.rc(), dropped.err());
            assertEquals(0, Cli.parse(run("slot", "list", url).out()).size());

            // a role without REPLICATION: the server's DETAIL says why (the DETAIL exists from 16 on)
            Cli.Result denied = run("identify", server.url(server.plainUser(), "postgres"));
            assertEquals(1, denied.rc());
            assertTrue(denied.err().contains("42501"), denied.err());
            if (version >= 16) {
                assertTrue(denied.err().contains("\nDETAIL:  Only roles with the REPLICATION attribute may start a WAL sender process."),
                        denied.err());
            }
            assertFalse(denied.err().contains(server.plainUser().password()));
        }
    }
}
