package io.pgrepl.it.ha;

import static io.pgrepl.it.ha.HaSupport.await;
import static io.pgrepl.it.ha.HaSupport.host;
import static io.pgrepl.it.ha.HaSupport.majors;
import static io.pgrepl.it.ha.HaSupport.scalar;
import static io.pgrepl.it.ha.HaSupport.waitStreaming;
import static io.pgrepl.it.ha.HaSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.replication.StandbySlots;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.ReplicationSlotException;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.StopMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logical decoding on a hot standby, on PostgreSQL 16 (the first with it), 17
 * (failover slots, invalidation_reason) and 18, one primary and one standby per major, in this order:
 * <ol>
 *   <li>slots created on the standby with {@link StandbySlots} (the primary is asked for
 *       {@code pg_log_standby_snapshot()}); transactions made on the primary stream from the
 *       standby exactly as from a slot on the primary, through the handler, Flow and blocking faces;
 *       the slot monitor reads the standby slot's positions from the replay LSN;</li>
 *   <li>a recovery conflict: {@code hot_standby_feedback} off, a catalog row removed and vacuumed on
 *       the primary; the standby invalidates its slots and the stream ends with the typed,
 *       non-retried {@link ReplicationSlotException} naming the cause;</li>
 *   <li>feedback on again, a new standby slot, a {@link ReconnectingLogicalStream} over a multi-host
 *       configuration naming the standby first; the primary stops and the standby is promoted
 *       mid-stream: every row of the new primary arrives, acknowledged ones once.</li>
 * </ol>
 */
class StandbyDecodingTest {
    private static final Logger log = LoggerFactory.getLogger(StandbyDecodingTest.class);
    private static final ReconnectPolicy POLICY = new ReconnectPolicy(Duration.ofMillis(200), Duration.ofSeconds(1), 2, 0.2, 120);

    @TestFactory
    Stream<DynamicTest> decodingOnAStandby() {
        return majors(16, 17, 18).stream().map(v -> dynamicTest("PG " + v, () -> run(v)));
    }

    private void run(int major) throws Exception {
        try (PgServer primary = PgServer.builder().version(major).setting("wal_sender_timeout", "5s").start()) {
            primary.sql("postgres", "CREATE TABLE sb_t (id int PRIMARY KEY); CREATE PUBLICATION sb_pub FOR TABLE sb_t");
            try (PgServer standby = primary.startStandby("sb_phys")) {
                sameChangesAsThePrimary(primary, standby);
                conflictIsTypedAndNotRetried(major, primary, standby);
                promotionMidStream(primary, standby);
            } finally {
                for (ReconnectingLogicalStream r : streams) r.stop().toCompletableFuture().handle((v, x) -> null).get(30, java.util.concurrent.TimeUnit.SECONDS);
                streams.clear();
            }
        }
    }

    private static LogicalReplicationOptions options(String slot) {
        return LogicalReplicationOptions.builder(slot).publications("sb_pub").statusInterval(Duration.ofMillis(200)).build();
    }

    /**
     * Creates the slot through {@link StandbySlots}; the helper's primary session logs its
     * statements ({@code log_statement=all} as a startup parameter), so the primary's log proves
     * that it asked for a standby snapshot (a busy primary's own records would also let the
     * command finish, only later).
     */
    private static void createOnStandby(PgServer primary, PgServer standby, String slot) throws Exception {
        long before = helperStatements(primary);
        try (PgConnection s = HaSupport.replication(standby)) {
            await(StandbySlots.create(s, CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING),
                    HaSupport.superuser(primary).startupParameter("log_statement", "all").build()));
        }
        waitUntil("the primary to log the helper's pg_log_standby_snapshot()", Duration.ofSeconds(10),
                () -> helperStatements(primary) > before);
    }

    private static long helperStatements(PgServer primary) {
        try (Stream<String> lines = java.nio.file.Files.lines(primary.logFile())) {
            return lines.filter(l -> l.contains("statement: SELECT pg_catalog.pg_log_standby_snapshot()")).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void sameChangesAsThePrimary(PgServer primary, PgServer standby) throws Exception {
        try (PgConnection p = HaSupport.replication(primary)) {
            await(p.createReplicationSlot(CreateSlotOptions.logical("sb_ref", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
        }
        createOnStandby(primary, standby, "sb_stream");
        createOnStandby(primary, standby, "sb_blocking");
        createOnStandby(primary, standby, "sb_flow");
        assertEquals("f", scalar(standby, "SELECT conflicting FROM pg_replication_slots WHERE slot_name = 'sb_stream'"));

        insert(primary, 1, 300);
        TxRecorder fromPrimary = new TxRecorder();
        TxRecorder fromStandby = new TxRecorder();
        ReconnectingLogicalStream ref = fromPrimary.start(HaSupport.superuser(primary).replication(ReplicationMode.DATABASE).build(), "sb_ref");
        ReconnectingLogicalStream onStandby = fromStandby.start(
                HaSupport.superuser(standby).replication(ReplicationMode.DATABASE).build(), "sb_stream");
        streams.add(ref);
        streams.add(onStandby);
        waitStreaming(ref, "30 transactions from the primary", Duration.ofSeconds(60), () -> fromPrimary.transactions.size() >= 30);
        waitStreaming(onStandby, "30 transactions from the standby", Duration.ofSeconds(60), () -> fromStandby.transactions.size() >= 30);
        assertEquals(30, fromPrimary.transactions.size());
        assertEquals(fromPrimary.transactions, fromStandby.transactions, "the standby's slot decodes what the primary's does");
        assertEquals(1, fromStandby.starts.get(), "streamed from the standby without a reconnect");
        await(ref.stop());

        assertEquals(fromPrimary.transactions, StandbyFaces.flowTransactions(standby, options("sb_flow"), 30),
                "the Flow face from the standby: the primary's transactions, each whole and in order");
        // The blocking face, from the second standby slot: the same rows in the same order.
        List<Integer> blocking = new ArrayList<>();
        try (PgConnection c = HaSupport.replication(standby);
             BlockingChanges<ChangeEvent> it = BlockingChanges.open(c, options("sb_blocking"))) {
            while (blocking.size() < 300) {
                ChangeEvent e = it.poll(Duration.ofSeconds(30));
                assertTrue(e != null, "the blocking face delivered " + blocking.size() + " rows, then nothing");
                if (e.record() instanceof Insert i) blocking.add(Integer.parseInt(i.newTuple().text(0)));
                e.acknowledge();
            }
        }
        assertEquals(fromPrimary.transactions.stream().flatMap(List::stream).toList(), blocking);
        StandbyFaces.monitorReadsTheReplayLsn(standby, "sb_flow");
        // The primary's own slot would hold catalog rows back on the primary, hiding the conflict below.
        primary.dropReplicationSlot("sb_ref");
        this.standbyStream = onStandby;
        exportedSnapshotOnTheStandby(primary, standby);
    }

    /**
     * A slot created on the standby with EXPORT_SNAPSHOT exports a snapshot there (16+), which a
     * REPEATABLE READ transaction on the standby imports: it keeps seeing the 300 rows after the
     * primary added one more and the standby replayed it.
     */
    private static void exportedSnapshotOnTheStandby(PgServer primary, PgServer standby) throws Exception {
        try (PgConnection s = HaSupport.replication(standby); PgConnection reader = HaSupport.sql(standby)) {
            var created = await(StandbySlots.create(s, CreateSlotOptions.logical("sb_export", "pgoutput").withTemporary(true)
                    .withSnapshot(SnapshotMode.EXPORT), HaSupport.superuser(primary).build()));
            assertTrue(created.snapshotName() != null, created.toString());
            await(reader.simpleQuery("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '"
                    + created.snapshotName() + "'"));
            assertEquals("300", await(reader.query("SELECT count(*) FROM sb_t")).singleRow().get(0));
            primary.sql("postgres", "INSERT INTO sb_t VALUES (5000)");
            waitUntil("the standby to replay row 5000", Duration.ofSeconds(30),
                    () -> query(standby, "SELECT count(*) FROM sb_t").equals("301"));
            assertEquals("300", await(reader.query("SELECT count(*) FROM sb_t")).singleRow().get(0), "the imported snapshot holds");
            await(reader.simpleQuery("COMMIT"));
        }
    }

    private ReconnectingLogicalStream standbyStream;
    private final List<ReconnectingLogicalStream> streams = new ArrayList<>();

    private void conflictIsTypedAndNotRetried(int major, PgServer primary, PgServer standby) throws Exception {
        standby.reload(Map.of("hot_standby_feedback", "off"));
        waitUntil("the physical slot to release its xmin", Duration.ofSeconds(30), () -> query(primary,
                "SELECT xmin IS NULL AND catalog_xmin IS NULL FROM pg_replication_slots WHERE slot_name = 'sb_phys'").equals("t"));
        // Two transactions: a catalog row inserted and deleted by the same one sets no conflict horizon.
        primary.sql("postgres", "CREATE TABLE sb_gone (x int)");
        primary.sql("postgres", "DROP TABLE sb_gone");
        // As PostgreSQL's own test (035_standby_logical_decoding) does: vacuum until the dead
        // catalog row is really removed (a short-lived snapshot elsewhere may still hold it back).
        waitUntil("the standby to invalidate its slot", Duration.ofSeconds(60), () -> {
            try {
                primary.sql("postgres", "VACUUM pg_class");
                // The kit runs with synchronous_commit=off and VACUUM flushes nothing: a running-xacts
                // record marks the WAL for the walwriter to flush, so the standby receives the prune.
                primary.sql("postgres", "SELECT pg_log_standby_snapshot()");
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
            return query(standby, "SELECT conflicting FROM pg_replication_slots WHERE slot_name = 'sb_blocking'").equals("t");
        });
        Throwable end = HaSupport.failure(standbyStream.completion(), Duration.ofSeconds(60));
        ReplicationSlotException e = assertInstanceOf(ReplicationSlotException.class, end, String.valueOf(end));
        assertEquals(ReplicationSlotException.Condition.INVALIDATED, e.condition(), e.toString());
        assertEquals(major >= 17 ? "rows_removed" : "conflicting", e.reason(), e.toString());
        assertTrue(e.getMessage().contains("hot_standby_feedback=on") && e.getMessage().contains("drop and create"), e.getMessage());
        assertTrue(standbyStream.reconnects() <= 1, "at most the reconnect that found the slot invalidated: " + standbyStream.reconnects());
        assertEquals("t", scalar(standby, "SELECT conflicting FROM pg_replication_slots WHERE slot_name = 'sb_stream'"));
        log.info("PG{}: conflict ended the standby stream with {}", major, e.toString());
        standby.reload(Map.of("hot_standby_feedback", "on"));
        for (String slot : List.of("sb_stream", "sb_blocking", "sb_flow")) {
            standby.dropReplicationSlot(slot);
        }
    }

    private void promotionMidStream(PgServer primary, PgServer standby) throws Exception {
        waitUntil("feedback to hold the primary's xmin again", Duration.ofSeconds(30), () -> query(primary,
                "SELECT xmin IS NOT NULL FROM pg_replication_slots WHERE slot_name = 'sb_phys'").equals("t"));
        createOnStandby(primary, standby, "sb_promote");
        HaSupport.Recorder rec = new HaSupport.Recorder();
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(
                HaSupport.multiHost(primary, List.of(host(standby), host(primary))).replication(ReplicationMode.DATABASE).build(),
                options("sb_promote"), rec, POLICY);
        streams.add(r);
        rec.owner = r;
        insert(primary, 10_001, 10_200);
        waitStreaming(r, "rows before the promotion", Duration.ofSeconds(60), () -> rec.distinct() == 200);
        assertEquals(standby.port(), rec.lastConnection.config().port(), "streaming from the standby");
        insert(primary, 10_201, 10_400);
        primary.stop(StopMode.FAST);
        standby.promote();
        insert(standby, 20_001, 20_100);
        waitStreaming(r, "the rows written after the promotion", Duration.ofSeconds(90), () -> rec.deliveries.containsKey(20_100));
        Set<Integer> expected = new HashSet<>();
        try (PgConnection c = HaSupport.sql(standby)) {
            await(c.query("SELECT id FROM sb_t WHERE id > 10000")).rows().forEach(row -> expected.add(Integer.parseInt(row.get(0))));
        }
        assertEquals(400 + 100, expected.size());
        assertEquals(expected, new HashSet<>(rec.deliveries.keySet()), "nothing lost across the promotion");
        for (int id = 10_001; id <= 10_200; id++) {
            assertEquals(1, rec.deliveries.get(id).get(), "row " + id + " was acknowledged before the promotion");
        }
        log.info("promotion: {} rows delivered, {} twice, {} reconnects", expected.size(), rec.duplicated(), r.reconnects());
        await(r.stop());
    }

    private static String query(PgServer s, String sql) {
        try {
            return scalar(s, sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One transaction per 10 rows (a multi-statement query is one transaction without them). */
    private static void insert(PgServer s, int from, int to) throws Exception {
        StringBuilder sql = new StringBuilder();
        for (int i = from; i <= to; i += 10) {
            sql.append("BEGIN; INSERT INTO sb_t SELECT generate_series(").append(i).append(", ").append(Math.min(to, i + 9))
                    .append("); COMMIT;");
        }
        s.sql("postgres", sql.toString());
    }

    /** Each transaction's inserted ids in order; acknowledges every commit. */
    private static final class TxRecorder implements LogicalStreamHandler {
        final List<List<Integer>> transactions = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger starts = new AtomicInteger();
        private final List<Integer> open = new ArrayList<>();
        private volatile ReconnectingLogicalStream owner;

        ReconnectingLogicalStream start(io.pgrepl.client.ConnectionConfig config, String slot) {
            owner = ReconnectingLogicalStream.start(config, options(slot), this, POLICY);
            return owner;
        }

        @Override
        public void onStarted(LogicalReplicationStream s) {
            starts.incrementAndGet();
            open.clear();
        }

        @Override
        public void onBegin(BeginMessage m) {
            open.clear();
        }

        @Override
        public void onInsert(InsertMessage m) {
            open.add(Integer.parseInt(m.newTuple().text(0)));
        }

        @Override
        public void onCommit(CommitMessage m) {
            transactions.add(List.copyOf(open));
            open.clear();
            while (owner == null) Thread.onSpinWait();
            owner.acknowledge(m.endLsn());
        }
    }
}
