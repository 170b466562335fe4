package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String type(String line) {
        return line.replaceAll("^\\{\"type\":\"([a-z_]+)\".*$", "$1");
    }

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

                Run r = run("stream", s.url(s.replicationUser(), "postgres"), "--slot", "sm", "--publication", "sm_pub",
                        "--idle-exit", "2");
                assertEquals(0, r.exit(), r.err());
                List<String> lines = r.out().lines().toList();
                assertEquals(List.of("begin", "relation", "insert", "insert", "commit", "begin", "delete", "commit"),
                        lines.stream().map(StreamMatrixTest::type).toList(), r.out());
                assertTrue(lines.get(2).contains("\"new\":{\"id\":\"1\",\"v\":\"één\"}"), lines.get(2));
                assertTrue(lines.get(3).contains("\"new\":{\"id\":\"2\",\"v\":null}"), lines.get(3));
                assertTrue(lines.get(6).contains("\"key\":{\"id\":\"1\"}"), lines.get(6));
            }
        }));
    }
}
