package io.pgrepl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.testkit.PgServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's two library programs ({@link HandlerQuickstart}, {@link FlowQuickstart}) run as a
 * reader would run them, against a real PostgreSQL 18: a table, a publication, the program's
 * {@code main} with a {@code replication=database} URL, two transactions, and the printed lines.
 * Expected lines are written by hand from the inserted SQL values.
 */
class QuickstartTest {
    private static PgServer server;
    private static PgConnection sql;

    @BeforeAll
    static void start() throws Exception {
        server = PgServer.builder().version(18).start();
        sql = PgConnection.connect(server.url(server.superuser(), "postgres")).toCompletableFuture().get(30, TimeUnit.SECONDS);
        sql.simpleQuery("CREATE TABLE qs_items (id int PRIMARY KEY, name text, price numeric, in_stock bool, tags text[],"
                + " added timestamptz); CREATE PUBLICATION qs_pub FOR TABLE qs_items").toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (sql != null) sql.close();
        if (server != null) server.close();
    }

    private interface Program {
        void main(String[] args) throws Exception;
    }

    /** Runs {@code program} with the README's arguments while two transactions commit; returns its stdout lines. */
    private static List<String> run(Program program, String slot) throws Exception {
        String url = server.url(server.replicationUser(), "postgres") + "?replication=database";
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CompletableFuture<Void> exited = CompletableFuture.runAsync(() -> {
                try {
                    program.main(new String[] {url, "qs_pub", "2"});
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            waitForActiveSlot(slot, exited);
            sql.simpleQuery("DELETE FROM qs_items; INSERT INTO qs_items VALUES"
                    + " (1, 'apple', 1.50, true, '{red,green}', '2026-01-02 03:04:05+00')").toCompletableFuture().get(30, TimeUnit.SECONDS);
            sql.simpleQuery("INSERT INTO qs_items VALUES (2, NULL, 'NaN', false, '{}', '2026-06-30 23:59:59.5+02')")
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            exited.get(60, TimeUnit.SECONDS); // returns only after the second commit stopped the stream
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static void waitForActiveSlot(String slot, CompletableFuture<Void> exited) throws Exception {
        for (int i = 0; i < 300; i++) {
            if (exited.isDone()) exited.get(); // the program failed before streaming: show why
            String active = sql.query("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active")
                    .toCompletableFuture().get(30, TimeUnit.SECONDS).singleRow().get(0);
            if (active.equals("1")) return;
            Thread.sleep(100);
        }
        throw new AssertionError("slot " + slot + " never became active");
    }

    private static final List<String> LINES = List.of(
            "insert into qs_items id=1 name=apple price=1.50 in_stock=true tags=[red, green] added=2026-01-02T03:04:05Z",
            "insert into qs_items id=2 name=null price=NaN in_stock=false tags=[] added=2026-06-30T21:59:59.500Z");

    @Test
    void handlerFacePrintsTypedRowsAndStopsAfterTwoCommits() throws Exception {
        assertEquals(LINES, run(HandlerQuickstart::main, "quickstart"));
        assertSlotGoneWithTheConnection("quickstart");
    }

    @Test
    void flowFacePrintsTheSameRows() throws Exception {
        assertEquals(LINES, run(FlowQuickstart::main, "quickstart_flow"));
        assertSlotGoneWithTheConnection("quickstart_flow");
    }

    /** The program stopped its stream and closed its connection: the temporary slot is dropped. */
    private static void assertSlotGoneWithTheConnection(String slot) throws Exception {
        for (int i = 0; i < 100; i++) {
            String n = sql.query("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'")
                    .toCompletableFuture().get(30, TimeUnit.SECONDS).singleRow().get(0);
            if (n.equals("0")) return;
            Thread.sleep(100);
        }
        assertTrue(false, "temporary slot " + slot + " still exists after the program returned");
    }
}
