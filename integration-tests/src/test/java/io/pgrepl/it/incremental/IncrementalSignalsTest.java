package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Signals through the slot: {@code pg_logical_emit_message(true, 'pgrepl', json)} from an ordinary
 * session starts, pauses, resumes and stops snapshots on the running stream; a malformed signal
 * is refused with the field named and the stream goes on; a signal for another slot is ignored.
 */
@PgTest
class IncrementalSignalsTest {
    /** Counts reads per table and keeps what the stream and the engine report. */
    static final class Recorder implements SnapshotReadHandler {
        final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();
        final Set<String> readKeys = ConcurrentHashMap.newKeySet();
        final Map<String, TableProgress> progress = new ConcurrentHashMap<>();
        final List<String> refused = new CopyOnWriteArrayList<>();
        final Set<String> markers = ConcurrentHashMap.newKeySet();

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            String t = row.relation().schema() + "." + row.relation().name();
            reads.computeIfAbsent(t, k -> new AtomicInteger()).incrementAndGet();
            readKeys.add(t + ":" + row.text(0));
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            progress.put(p.table(), p);
        }

        @Override
        public void onSignalRefused(String source, String reason) {
            refused.add(source + ": " + reason);
        }

        @Override
        public void onInsert(InsertMessage m) {
            if (m.relation().name().equals("inc_marker")) markers.add(m.newTuple().text(0));
        }

        int reads(String t) {
            AtomicInteger a = reads.get(t);
            return a == null ? 0 : a.get();
        }

        TableProgress.Status status(String t) {
            TableProgress p = progress.get(t);
            return p == null ? null : p.status();
        }
    }

    private static void signal(PgConnection sql, String json) throws Exception {
        await(sql.query("SELECT pg_logical_emit_message(true, 'pgrepl', '" + json.replace("'", "''") + "')"));
    }

    /** A committed insert the stream must deliver: everything committed before it was delivered too. */
    private static void roundTrip(PgConnection sql, Recorder r, String id) throws Exception {
        await(sql.query("INSERT INTO inc_marker VALUES ('" + id + "')"));
        waitUntil("marker " + id, Duration.ofSeconds(30), () -> r.markers.contains(id));
    }

    @Test
    void sqlSignalsDriveSnapshotsOnTheRunningStream(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS inc_sig_pub; DROP TABLE IF EXISTS inc_a, inc_b, inc_c, inc_marker;"
                + " CREATE TABLE inc_a (id int PRIMARY KEY, v text); INSERT INTO inc_a SELECT g, 'a' || g FROM generate_series(1, 3000) g;"
                + " CREATE TABLE inc_b (id int PRIMARY KEY, v text); INSERT INTO inc_b SELECT g, 'b' || g FROM generate_series(1, 20000) g;"
                + " CREATE TABLE inc_c (id int PRIMARY KEY, v text); INSERT INTO inc_c SELECT g, 'c' FROM generate_series(1, 10) g;"
                + " CREATE TABLE inc_marker (id text PRIMARY KEY);"
                + " CREATE PUBLICATION inc_sig_pub FOR TABLE inc_a, inc_b, inc_c, inc_marker");
        Recorder r = new Recorder();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, "inc_sig");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_sig").publications("inc_sig_pub").messages(true)
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(
                    IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100).withAcceptMessageSignals(true), r);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());

            // Malformed: refused, named, and the stream goes on.
            signal(sql, "{\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":5}}");
            signal(sql, "{\"type\":\"execute-snapshot\",\"data\":");
            roundTrip(sql, r, "m1");
            assertEquals(2, r.refused.size(), "both refused: " + r.refused);
            assertTrue(r.refused.get(0).contains("data-collections"), r.refused.get(0));
            assertFalse(stream.completion().toCompletableFuture().isDone(), "the stream goes on");

            // Another slot's signal: ignored here.
            signal(sql, "{\"type\":\"execute-snapshot\",\"slot\":\"someone_else\",\"data\":{\"data-collections\":[\"public.inc_c\"]}}");
            roundTrip(sql, r, "m2");
            assertNull(r.status("public.inc_c"), "no snapshot for another slot's signal");

            // Execute and pause in one transaction: paused before the first chunk.
            await(sql.simpleQuery("BEGIN; SELECT pg_logical_emit_message(true, 'pgrepl', '{\"type\":\"execute-snapshot\",\"data\":"
                    + "{\"data-collections\":[\"public.inc_a\"],\"type\":\"incremental\"}}');"
                    + " SELECT pg_logical_emit_message(true, 'pgrepl', '{\"type\":\"pause-snapshot\"}'); COMMIT"));
            waitUntil("inc_a paused", Duration.ofSeconds(30), () -> r.status("public.inc_a") == TableProgress.Status.PAUSED);
            roundTrip(sql, r, "m3");
            roundTrip(sql, r, "m4");
            assertEquals(0, r.reads("public.inc_a"), "nothing read while paused");

            signal(sql, "{\"type\":\"resume-snapshot\"}");
            waitUntil("inc_a completed", Duration.ofSeconds(60), () -> r.status("public.inc_a") == TableProgress.Status.COMPLETED);
            assertEquals(3000, r.reads("public.inc_a"));
            assertEquals(3000, r.readKeys.stream().filter(k -> k.startsWith("public.inc_a:")).count(), "each row once");

            // Stop a running snapshot: it ends, its reads stop, and it leaves the state.
            signal(sql, "{\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":[\"public\\\\.inc_b\"]}}");
            waitUntil("inc_b chunks", Duration.ofSeconds(60), () -> r.reads("public.inc_b") >= 300);
            signal(sql, "{\"type\":\"stop-snapshot\",\"data\":{\"data-collections\":[\"public.inc_b\"]}}");
            waitUntil("inc_b stopped", Duration.ofSeconds(30), () -> r.status("public.inc_b") == TableProgress.Status.STOPPED);
            int atStop = r.reads("public.inc_b");
            roundTrip(sql, r, "m5");
            roundTrip(sql, r, "m6");
            assertEquals(atStop, r.reads("public.inc_b"), "no reads after the stop");
            assertTrue(atStop < 20000, "stopped before the end: " + atStop);
            assertFalse(snaps.state().contains("inc_b"), snaps.state());
            await(stream.stop());
            snaps.close();
        }
    }

    /**
     * Names that need quoting, spelled as users spell them: Debezium's {@code Sales."Order-Items"}
     * (schema as written), PostgreSQL's quoted and folded forms; every spelling is one table
     * (planned once, stopped by another spelling), and a name that matches nothing is reported as
     * a failed table, not dropped in silence.
     */
    @Test
    void namesThatNeedQuotingAreOneTableInEverySpelling(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS inc_qn_pub; DROP SCHEMA IF EXISTS \"Sales\" CASCADE;"
                + " DROP SCHEMA IF EXISTS \"Sales.Q1\" CASCADE; DROP TABLE IF EXISTS inc_marker;"
                + " CREATE SCHEMA \"Sales\"; CREATE SCHEMA \"Sales.Q1\"; CREATE TABLE inc_marker (id text PRIMARY KEY);"
                + " CREATE TABLE \"Sales\".\"Order-Items\" (id int PRIMARY KEY, v text);"
                + " INSERT INTO \"Sales\".\"Order-Items\" SELECT g, 'v' || g FROM generate_series(1, 20000) g;"
                + " CREATE TABLE \"Sales.Q1\".\"Ümlaut Tåble\" (id int PRIMARY KEY, v text);"
                + " INSERT INTO \"Sales.Q1\".\"Ümlaut Tåble\" SELECT g, 'v' || g FROM generate_series(1, 50) g;"
                + " CREATE PUBLICATION inc_qn_pub FOR TABLE \"Sales\".\"Order-Items\", \"Sales.Q1\".\"Ümlaut Tåble\", inc_marker");
        Recorder r = new Recorder();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, "inc_qn");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_qn").publications("inc_qn_pub").messages(true)
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(
                    IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100).withAcceptMessageSignals(true), r);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            String items = "\"Sales\".\"Order-Items\"";
            // Debezium's documented spelling, then two more spellings of the same table in the same signal.
            signal(sql, "{\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":"
                    + "[\"Sales.\\\"Order-Items\\\"\", \"\\\"Sales\\\".\\\"Order-Items\\\"\"]}}");
            waitUntil("Order-Items chunks", Duration.ofSeconds(60), () -> r.reads("Sales.Order-Items") >= 300);
            assertEquals(Set.of(items), r.progress.keySet(), "one table, one spelling: " + r.progress.keySet());
            // Stopped by yet another spelling.
            signal(sql, "{\"type\":\"stop-snapshot\",\"data\":{\"data-collections\":[\"\\\"Sales\\\".\\\"Order-Items\\\"\"]}}");
            waitUntil("Order-Items stopped", Duration.ofSeconds(30), () -> r.status(items) == TableProgress.Status.STOPPED);
            // Dots and non-ASCII inside quoted names, from the library's API.
            snaps.execute("\"Sales.Q1\".\"Ümlaut Tåble\"");
            waitUntil("the dotted table", Duration.ofSeconds(60), () -> r.status("\"Sales.Q1\".\"Ümlaut Tåble\"") == TableProgress.Status.COMPLETED);
            assertEquals(50, r.reads("Sales.Q1.Ümlaut Tåble"));
            // A name that matches nothing: a failed table that says why, and the stream goes on.
            signal(sql, "{\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":[\"Sales.\\\"Nope\\\"\"]}}");
            waitUntil("the unmatched name reported", Duration.ofSeconds(30), () -> r.status("Sales.\"Nope\"") == TableProgress.Status.FAILED);
            assertTrue(r.progress.get("Sales.\"Nope\"").error().contains("matches no table"), r.progress.get("Sales.\"Nope\"").error());
            roundTrip(sql, r, "q1");
            assertFalse(stream.completion().toCompletableFuture().isDone(), "the stream goes on");
            await(stream.stop());
            snaps.close();
        }
    }
}
