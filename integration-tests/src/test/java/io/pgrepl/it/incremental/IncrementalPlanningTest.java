package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How planning a table fails: a lock the planner waits for past {@code lock_timeout} (held by
 * another session) is tried again until it is granted, and the table is read whole; a dropped
 * table fails at once, never tried again. A table resumed from a saved state meets the checks a
 * requested one does: a key that changed since the state was saved, a stream without watermarks
 * and a binary stream each fail it with the reason.
 */
class IncrementalPlanningTest {
    /** The progress reports and the keys read, per table. */
    static final class Recorder implements SnapshotReadHandler {
        final List<TableProgress> events = Collections.synchronizedList(new ArrayList<>());
        final Map<String, TableProgress> last = new ConcurrentHashMap<>();
        final Set<String> reads = ConcurrentHashMap.newKeySet();

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            reads.add(row.relation().name() + ":" + row.text(0));
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            events.add(p);
            last.put(p.table(), p);
        }

        boolean ended(String table) {
            TableProgress p = last.get(table);
            return p != null && (p.status() == TableProgress.Status.COMPLETED || p.status() == TableProgress.Status.FAILED);
        }

        List<TableProgress> of(String table) {
            synchronized (events) {
                return events.stream().filter(p -> p.table().equals(table)).toList();
            }
        }
    }

    private static final String SIGNAL = "CREATE TABLE IF NOT EXISTS plan_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL,"
            + " data varchar(2048));";

    /** A stream of {@code slot} over {@code pub}, with message watermarks where the server has them, else the signal table's. */
    private static LogicalReplicationOptions.Builder stream(String slot, String pub, int major) {
        return LogicalReplicationOptions.builder(slot).publications(pub).messages(major >= 14 ? true : null).autoAcknowledge(true)
                .statusInterval(Duration.ofMillis(200));
    }

    @PgMatrixTest(newestAndOldest = true)
    void aLockTimeoutIsTriedAgainAndADroppedTableFailsAtOnce(PgServer s) throws Exception {
        s.sql("postgres", SIGNAL + "CREATE TABLE \"Plan Lock\" (id int PRIMARY KEY, amount numeric(10,2), label varchar(12));"
                + " INSERT INTO \"Plan Lock\" SELECT g, g / 7.0, 'l' || g FROM generate_series(1, 3000) g;"
                + " CREATE TABLE plan_gone (id int PRIMARY KEY);"
                + " CREATE PUBLICATION plan_lock_pub FOR TABLE \"Plan Lock\", plan_gone, plan_signal;"
                + " DROP TABLE plan_gone");
        Recorder r = new Recorder();
        try (PgConnection locker = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            int major = repl.serverMajor();
            IncSupport.createSlot(repl, "plan_lock");
            // The planner's catalog reads wait for the table's lock (pg_relation_size opens it) at most 300 ms.
            IncrementalOptions io = IncrementalOptions.of(config(s, ReplicationMode.NONE).toBuilder().startupParameter("lock_timeout", "300ms")
                    .build()).withChunkSize(250).withSignalTable("public.plan_signal");
            IncrementalSnapshots snaps = IncrementalSnapshots.create(io, r);
            LogicalReplicationStream stream = repl.startLogical(stream("plan_lock", "plan_lock_pub", major).build(), snaps);
            await(stream.started());

            await(locker.query("BEGIN; LOCK TABLE \"Plan Lock\" IN ACCESS EXCLUSIVE MODE"));
            snaps.execute("public.\"Plan Lock\"", "public.plan_gone");
            String locked = "public.\"Plan Lock\"";
            // The lock's timeout is reported as an attempt to be repeated, and the table keeps waiting.
            waitUntil("a planning attempt that met the lock", Duration.ofSeconds(30), () -> r.of(locked).stream()
                    .anyMatch(p -> p.status() == TableProgress.Status.PLANNING && p.error() != null && p.error().contains("lock timeout")));
            Thread.sleep(1000);
            assertEquals(TableProgress.Status.PLANNING, r.last.get(locked).status(), "still waiting for the lock: " + r.last.get(locked));
            await(locker.query("COMMIT"));
            waitUntil("the locked table's end", Duration.ofSeconds(60), () -> r.ended(locked));
            assertEquals(TableProgress.Status.COMPLETED, r.last.get(locked).status(), String.valueOf(r.last.get(locked)));
            assertEquals(null, r.last.get(locked).error(), "no error left once planned");
            assertEquals(3000, r.reads.stream().filter(k -> k.startsWith("Plan Lock:")).count(), "every row read once the lock went");

            // The dropped table: one report, FAILED with the reason; no attempt was repeated.
            String gone = "public.plan_gone";
            waitUntil("the dropped table's end", Duration.ofSeconds(60), () -> r.ended(gone));
            List<TableProgress> goneEvents = r.of(gone);
            assertEquals(1, goneEvents.size(), "failed at once, never tried again: " + goneEvents);
            assertEquals(TableProgress.Status.FAILED, goneEvents.get(0).status());
            assertTrue(goneEvents.get(0).error().contains("plan_gone") && goneEvents.get(0).error().contains("does not exist"),
                    goneEvents.get(0).error());
            await(stream.stop());
            snaps.close();
        }
    }

    @PgMatrixTest(newestAndOldest = true)
    void aResumedTableMeetsTheChecksOfANewOne(PgServer s) throws Exception {
        s.sql("postgres", SIGNAL + "CREATE TABLE \"Resume Key\" (id int PRIMARY KEY, v varchar(8) NOT NULL);"
                + " INSERT INTO \"Resume Key\" SELECT g, 'v' || g FROM generate_series(1, 500) g;"
                + " CREATE PUBLICATION plan_resume_pub FOR TABLE \"Resume Key\", plan_signal;"
                // The key changes after the state below was saved: (id) becomes (v, id).
                + " ALTER TABLE \"Resume Key\" DROP CONSTRAINT \"Resume Key_pkey\", ADD PRIMARY KEY (v, id)");
        String table = "public.\"Resume Key\"";
        // A state saved while (id) was the key, in the documented format: after key 200 of one range.
        String state = "pgrepl-inc 1\nt " + URLEncoder.encode(table, StandardCharsets.UTF_8) + " - -\nr - - k,200 0";
        // One that fits the key (v, id): what a stream without watermarks, or a binary one, must still refuse.
        String fitting = "pgrepl-inc 1\nt " + URLEncoder.encode(table, StandardCharsets.UTF_8) + " - -\nr - - k,v200,200 0";
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            int major = sql.serverMajor();
            IncrementalOptions base = IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100).withResumeState(state);

            // The key it was saved for is gone: the table fails naming its key now, not read from a wrong position.
            Recorder keyed = new Recorder();
            String keyError = resumeUntilEnded(s, "plan_resume_key", stream("plan_resume_key", "plan_resume_pub", major),
                    base.withSignalTable("public.plan_signal"), keyed, table);
            assertTrue(keyError.contains(table) && keyError.contains("[v, id]") && keyError.contains("key changed"), keyError);
            assertTrue(keyed.reads.isEmpty(), "nothing read: " + keyed.reads.size());

            // No watermarks: no signal table, and no messages (before 14 there are none).
            Recorder bare = new Recorder();
            String markError = resumeUntilEnded(s, "plan_resume_bare", stream("plan_resume_bare", "plan_resume_pub", major)
                    .messages(null), base.withResumeState(fitting), bare, table);
            assertTrue(markError.contains("no watermarks available"), markError);

            if (major >= 14) {
                // pgoutput's binary option (14+): keys are compared as text, so a binary stream is refused.
                Recorder binary = new Recorder();
                String binaryError = resumeUntilEnded(s, "plan_resume_bin", stream("plan_resume_bin", "plan_resume_pub", major)
                        .binary(true), base.withResumeState(fitting).withSignalTable("public.plan_signal"), binary, table);
                assertTrue(binaryError.contains("without the binary option"), binaryError);
                assertTrue(binary.reads.isEmpty(), "nothing read: " + binary.reads.size());
            }
        }
    }

    /** Streams {@code slot} under an engine resumed with {@code options} until {@code table} ended; returns its error. */
    private static String resumeUntilEnded(PgServer s, String slot, LogicalReplicationOptions.Builder o, IncrementalOptions options,
                                           Recorder r, String table) throws Exception {
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, slot);
            IncrementalSnapshots snaps = IncrementalSnapshots.create(options, r);
            LogicalReplicationStream stream = repl.startLogical(o.build(), snaps);
            try {
                await(stream.started());
                waitUntil(table + "'s end on " + slot, Duration.ofSeconds(60), () -> r.ended(table));
                TableProgress p = r.last.get(table);
                assertEquals(TableProgress.Status.FAILED, p.status(), String.valueOf(p));
                return p.error();
            } finally {
                await(stream.stop());
                snaps.close();
            }
        }
    }
}
