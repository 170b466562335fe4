package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.slot.GuardEvent;
import io.pgrepl.client.slot.SlotGuard;
import io.pgrepl.client.slot.SlotGuardPolicy;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The slot guard controls a running incremental snapshot on a real PostgreSQL 18: the consumer does
 * not confirm, WAL is switched until the retained WAL crosses the guard's snapshot step, and the
 * snapshot holds (no chunk starts while the stream goes on); once the consumer confirms again and the
 * slot is back below the step, it goes on and every row is read exactly once. With the ABORT action the
 * table fails with the guard's reason and nothing more is read.
 */
@PgTest
class IncrementalGuardTest {
    private static final long MB = 1024 * 1024;
    private static final int ROWS = 10_000;
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Reads per key, progress and the stream; confirms commits only while {@link #confirm} is set. */
    static final class Consumer implements SnapshotReadHandler {
        final Map<String, Integer> reads = new ConcurrentHashMap<>();
        final AtomicInteger readCount = new AtomicInteger();
        final List<TableProgress> progress = new CopyOnWriteArrayList<>();
        volatile boolean confirm;
        volatile LogicalReplicationStream stream;

        @Override
        public void onStarted(LogicalReplicationStream s) {
            stream = s;
        }

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            reads.merge(row.text(0), 1, Integer::sum);
            readCount.incrementAndGet();
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            progress.add(p);
        }

        @Override
        public void onCommit(CommitMessage m) {
            if (confirm) stream.acknowledge(m.endLsn());
        }

        TableProgress.Status status() {
            return progress.isEmpty() ? null : progress.get(progress.size() - 1).status();
        }
    }

    private static void setUp(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE IF NOT EXISTS ig_t (id int PRIMARY KEY, v text); CREATE TABLE IF NOT EXISTS ig_fill (id int);"
                + " INSERT INTO ig_t SELECT g, 'row ' || g FROM generate_series(1, " + ROWS + ") g ON CONFLICT DO NOTHING;"
                + " DROP PUBLICATION IF EXISTS ig_pub; CREATE PUBLICATION ig_pub FOR TABLE ig_t, ig_fill");
    }

    @Test
    void guardPausesTheSnapshotAndResumesItWhenTheSlotCatchesUp(@PgServerConfig(version = 18) PgServer s) throws Exception {
        Run r = Run.start(s, "ig_pause", SlotGuardPolicy.SnapshotAction.PAUSE);
        try {
            r.pushWalUntil(GuardEvent.Kind.SNAPSHOT_PAUSED);
            waitUntil("paused", WAIT, () -> r.consumer.status() == TableProgress.Status.PAUSED);
            // The chunk in flight may still be emitted: settle over a few polls, then nothing more may come.
            r.polls(3);
            int held = r.consumer.readCount.get();
            r.polls(8);
            assertEquals(held, r.consumer.readCount.get(), "no chunk read while the guard holds the snapshot");
            assertEquals(TableProgress.Status.PAUSED, r.consumer.status());
            assertTrue(held < ROWS, "paused mid-table: " + held);

            r.engine.pause(); // an operator pauses too
            r.consumer.confirm = true; // the consumer catches up: commits confirmed, restart_lsn moves with a checkpoint
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!r.kinds().contains(GuardEvent.Kind.SNAPSHOT_RESUMED)) {
                assertTrue(System.nanoTime() < deadline, "never resumed: " + r.kinds());
                s.sql("postgres", "INSERT INTO ig_fill VALUES (0); CHECKPOINT");
                r.polls(2);
            }
            // The operator's own pause, taken while the guard held the snapshot, outlives the guard's release.
            r.polls(3);
            assertEquals(TableProgress.Status.PAUSED, r.consumer.status(), "the guard released only its own hold");
            assertEquals(held, r.consumer.readCount.get());
            r.engine.resume();
            waitUntil("completed", WAIT, () -> r.consumer.status() == TableProgress.Status.COMPLETED);
            assertEquals(List.of(GuardEvent.Kind.WARNED, GuardEvent.Kind.SNAPSHOT_PAUSED, GuardEvent.Kind.SNAPSHOT_RESUMED),
                    r.kinds().subList(0, 3));
            assertEquals(ROWS, r.consumer.reads.size(), "every row read");
            assertTrue(r.consumer.reads.values().stream().allMatch(n -> n == 1), "each once");
        } finally {
            r.close();
        }
    }

    @Test
    void guardAbortsTheSnapshotWithItsReason(@PgServerConfig(version = 18) PgServer s) throws Exception {
        Run r = Run.start(s, "ig_abort", SlotGuardPolicy.SnapshotAction.ABORT);
        try {
            r.pushWalUntil(GuardEvent.Kind.SNAPSHOT_ABORTED);
            waitUntil("failed", WAIT, () -> r.consumer.status() == TableProgress.Status.FAILED);
            TableProgress end = r.consumer.progress.get(r.consumer.progress.size() - 1);
            assertTrue(end.error() != null && end.error().contains("slot guard") && end.error().contains("retained WAL"), end.toString());
            int atEnd = r.consumer.readCount.get();
            r.polls(5);
            assertEquals(atEnd, r.consumer.readCount.get(), "nothing read after the abort");
            assertTrue(atEnd < ROWS, "aborted mid-table: " + atEnd);
            assertEquals(null, r.guard.tripped(), "the stream itself goes on");
        } finally {
            r.close();
        }
    }

    /** One stream with an engine, its slot's monitor and guard. */
    private record Run(PgServer s, String slot, Consumer consumer, PgConnection repl, IncrementalSnapshots engine,
                       SlotMonitor monitor, SlotGuard guard, List<GuardEvent> events, AtomicInteger pollCount) {
        static Run start(PgServer s, String slot, SlotGuardPolicy.SnapshotAction action) throws Exception {
            setUp(s);
            PgConnection repl = connect(s, ReplicationMode.DATABASE);
            IncSupport.createSlot(repl, slot);
            Consumer c = new Consumer();
            IncrementalSnapshots engine = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withChunkSize(10), c); // 1,000 chunks: the guard must find the snapshot still running
            LogicalReplicationStream stream = repl.startLogical(LogicalReplicationOptions.builder(slot).publications(List.of("ig_pub"))
                    .messages(true).statusInterval(Duration.ofMillis(100)).build(), engine);
            await(stream.started());
            SlotMonitor monitor = SlotMonitor.builder(config(s, ReplicationMode.NONE)).slot(slot).interval(Duration.ofMillis(100)).build();
            SlotGuard guard = SlotGuard.attach(monitor, slot, SlotGuardPolicy.builder().warnWhenRetainedWalAbove(6 * MB)
                    .snapshotWhenRetainedWalAbove(12 * MB).failWhenRetainedWalAbove(4096 * MB).snapshotAction(action).build(), stream);
            guard.snapshot(engine.guardControl());
            List<GuardEvent> events = new CopyOnWriteArrayList<>();
            guard.addListener(events::add);
            AtomicInteger polls = new AtomicInteger();
            monitor.addListener(h -> polls.incrementAndGet()); // after the guard's: a poll counted here was judged
            monitor.start();
            engine.execute("public.ig_t");
            Run r = new Run(s, slot, c, repl, engine, monitor, guard, events, polls);
            waitUntil("reads", WAIT, () -> c.readCount.get() >= 200);
            return r;
        }

        List<GuardEvent.Kind> kinds() {
            return events.stream().map(GuardEvent::kind).toList();
        }

        void polls(int n) throws InterruptedException {
            int target = pollCount.get() + n;
            waitUntil(n + " polls", WAIT, () -> pollCount.get() >= target);
        }

        /** Switches WAL segments (16 MB each) while nothing is confirmed, until the guard took {@code kind}. */
        void pushWalUntil(GuardEvent.Kind kind) throws Exception {
            for (int i = 0; i < 6 && !kinds().contains(kind); i++) {
                s.sql("postgres", "INSERT INTO ig_fill VALUES (" + i + "); SELECT pg_switch_wal()");
                polls(2);
            }
            assertTrue(kinds().contains(kind), "the guard did not act: " + kinds());
        }

        void close() throws Exception {
            guard.close();
            monitor.close();
            repl.close();
            engine.close();
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                waitUntil("slot released", WAIT, () -> {
                    try {
                        return "f".equals(await(sql.query("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                                .singleRow().get(0));
                    } catch (Exception e) {
                        return false;
                    }
                });
            }
            s.dropReplicationSlot(slot);
        }
    }
}
