package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@code pgrepl stream} against a SCRAM server of every major of {@code -Dpg.versions}, as the
 * replication user, with the protocol version picked automatically. Expected lines come from the
 * SQL the test runs, not from the command.
 */
class StreamMatrixTest {
    @TestFactory
    Stream<DynamicTest> streamsFromEveryMajorWithScram() {
        return PgVersions.matrix().stream().map(v -> dynamicTest("PG " + v, () -> {
            try (PgServer s = PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256).start()) {
                // No GRANT on the table: a walsender decodes through the catalogs, publication
                // membership is enough (checked here on every major).
                s.sql("postgres", "CREATE TABLE sm (id int PRIMARY KEY, v text); CREATE PUBLICATION sm_pub FOR TABLE sm");
                s.sql("postgres", "SELECT pg_create_logical_replication_slot('sm', 'pgoutput')");
                s.sql("postgres", "INSERT INTO sm VALUES (1, 'één'), (2, NULL)");
                s.sql("postgres", "DELETE FROM sm WHERE id = 1");

                Cli.Result r = Cli.run("stream", s.url(s.replicationUser(), "postgres"), "--slot", "sm", "--publication",
                        "sm_pub", "--idle-exit", "2", "--format", "protocol");
                assertEquals(0, r.rc(), r.err());
                List<JsonNode> lines = r.lines();
                assertEquals(List.of("begin", "relation", "insert", "insert", "commit", "begin", "delete", "commit"),
                        r.types(), r.out());
                assertEquals(Cli.parse("{\"id\":\"1\",\"v\":\"één\"}"), lines.get(2).get("new"));
                assertEquals(Cli.parse("{\"id\":\"2\",\"v\":null}"), lines.get(3).get("new"));
                assertEquals(Cli.parse("{\"id\":\"1\"}"), lines.get(6).get("key"));
            }
        }));
    }
}
