package io.pgrepl.it.stream;

import static io.pgrepl.it.stream.StreamSupport.await;
import static io.pgrepl.it.stream.StreamSupport.confirmedFlush;
import static io.pgrepl.it.stream.StreamSupport.connect;
import static io.pgrepl.it.stream.StreamSupport.createLogicalSlot;
import static io.pgrepl.it.stream.StreamSupport.failure;
import static io.pgrepl.it.stream.StreamSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.PhysicalReplicationOptions;
import io.pgrepl.client.stream.PhysicalReplicationStream;
import io.pgrepl.client.stream.PhysicalStreamHandler;
import io.pgrepl.client.stream.ReplicationServerErrorException;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Live logical (and physical) streams against real servers of every major in the matrix.
 * wal_sender_timeout is 2 s so that a client that stops answering is cut off quickly.
 */
@PgServerConfig(settings = {"wal_sender_timeout=2s", "max_prepared_transactions=10"})
class LogicalStreamTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static void setup(PgServer s, String table, String pub) throws Exception {
        s.sql("postgres", "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table
                + " (id int PRIMARY KEY, v text); CREATE PUBLICATION " + pub + " FOR TABLE " + table);
    }

    private static LogicalReplicationOptions.Builder opts(String slot, String pub) {
        return LogicalReplicationOptions.builder(slot).publications(pub).statusInterval(Duration.ofMillis(200));
    }

    @PgMatrixTest
    void everyMessageTypeArrives(PgServer s) throws Exception {
        int major = s.majorVersion();
        s.sql("postgres", "DROP TABLE IF EXISTS it_all; DROP TYPE IF EXISTS it_mood CASCADE; DROP PUBLICATION IF EXISTS it_all_pub; CREATE TYPE it_mood AS ENUM ('ok', 'meh');"
                + " CREATE TABLE it_all (id int PRIMARY KEY, v text, m it_mood); CREATE PUBLICATION it_all_pub FOR TABLE it_all;"
                + " SELECT pg_replication_origin_create('it_origin')");
        if (major >= 14) {
            s.sql("postgres", "ALTER SYSTEM SET logical_decoding_work_mem = '64kB'");
            s.sql("postgres", "SELECT pg_reload_conf()");
        }
        RecordingHandler h = new RecordingHandler();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            createLogicalSlot(repl, "it_all", false);
            LogicalReplicationOptions.Builder b = opts("it_all", "it_all_pub").autoAcknowledge(true);
            if (major >= 14) b.messages(true).streaming(StreamingMode.AUTO);
            if (major >= 15) b.twoPhase(true);
            LogicalReplicationStream st = repl.startLogical(b.build(), h);
            await(st.started());
            assertEquals(major >= 16 ? 4 : major == 15 ? 3 : major == 14 ? 2 : 1, st.protoVersion());

            s.sql("postgres", "INSERT INTO it_all VALUES (1, 'a', 'ok'); UPDATE it_all SET v = 'b' WHERE id = 1;"
                    + " DELETE FROM it_all WHERE id = 1");
            s.sql("postgres", "SELECT pg_replication_origin_session_setup('it_origin'); INSERT INTO it_all VALUES (2, 'o', 'meh')");
            Set<Character> expected = new HashSet<>(List.of('R', 'Y', 'B', 'C', 'I', 'U', 'D', 'O'));
            if (major >= 11) {
                s.sql("postgres", "TRUNCATE it_all");
                expected.add('T');
            }
            if (major >= 14) {
                s.sql("postgres", "SELECT pg_logical_emit_message(true, 'it', 'tx'); SELECT pg_logical_emit_message(false, 'it', 'nontx')");
                // Abort only once the transaction was streamed: a server that already knows of the abort
                // when decoding (18) never streams it.
                try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                    await(sql.simpleQuery("BEGIN; INSERT INTO it_all SELECT g, repeat('y', 200), 'ok' FROM generate_series(3000, 5000) g"));
                    waitUntil("stream start", WAIT, () -> h.types.contains('S'));
                    await(sql.simpleQuery("ROLLBACK"));
                }
                s.sql("postgres", "INSERT INTO it_all SELECT g, repeat('x', 200), 'ok' FROM generate_series(100, 2100) g");
                expected.addAll(List.of('M', 'S', 'E', 'c', 'A'));
            }
            if (major >= 15) {
                s.sql("postgres", "BEGIN; INSERT INTO it_all VALUES (9001, 'p', 'ok'); PREPARE TRANSACTION 'it_g1'");
                s.sql("postgres", "COMMIT PREPARED 'it_g1'");
                s.sql("postgres", "BEGIN; INSERT INTO it_all VALUES (9002, 'p', 'ok'); PREPARE TRANSACTION 'it_g2'");
                waitUntil("second prepare", WAIT, () -> h.count('P') >= 2);
                s.sql("postgres", "ROLLBACK PREPARED 'it_g2'");
                expected.addAll(List.of('b', 'P', 'K', 'r'));
            }
            waitUntil("message types " + expected + ", got " + h.types, WAIT, () -> h.types.containsAll(expected));
            assertTrue(h.originNames.contains("it_origin"));
            assertTrue(h.sawZeroWalStart, "Relation/Type arrive with walStart 0");
            // auto-acknowledge moved the slot up to the last commit
            long lastCommit = h.commitEnds.get(h.commitEnds.size() - 1);
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                waitUntil("confirmed_flush >= last commit", WAIT, () -> quiet(() -> confirmedFlush(sql, "it_all") >= lastCommit));
            }
            await(st.stop());
            await(repl.dropReplicationSlot("it_all", false));
        } finally {
            s.sql("postgres", "DROP PUBLICATION it_all_pub; DROP TABLE it_all; DROP TYPE it_mood;"
                    + " SELECT pg_replication_origin_drop('it_origin')");
            if (major >= 14) {
                s.sql("postgres", "ALTER SYSTEM RESET logical_decoding_work_mem");
                s.sql("postgres", "SELECT pg_reload_conf()");
            }
        }
    }

    @PgMatrixTest
    void confirmedFlushNeverPassesAcknowledgementButAdvancesWhenIdle(PgServer s) throws Exception {
        setup(s, "it_ack", "it_ack_pub");
        s.sql("postgres", "DROP TABLE IF EXISTS it_other; CREATE TABLE it_other (id int)");
        RecordingHandler h = new RecordingHandler();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            createLogicalSlot(repl, "it_ack", false);
            long initial = confirmedFlush(sql, "it_ack");
            LogicalReplicationStream st = repl.startLogical(opts("it_ack", "it_ack_pub").build(), h);
            await(st.started());
            s.sql("postgres", "INSERT INTO it_ack VALUES (1, 'one')");
            s.sql("postgres", "INSERT INTO it_ack VALUES (2, 'two')");
            waitUntil("two commits", WAIT, () -> h.commitEnds.size() >= 2);
            long end1 = h.commitEnds.get(0);
            long end2 = h.commitEnds.get(1);
            Thread.sleep(1500); // several status updates and keepalives
            assertTrue(confirmedFlush(sql, "it_ack") < end1, "nothing acknowledged: the slot must not pass the first commit");
            st.acknowledge(end1);
            waitUntil("confirmed_flush reaches the acknowledged commit", WAIT, () -> quiet(() -> confirmedFlush(sql, "it_ack") >= end1));
            Thread.sleep(1000);
            assertEquals(end1, confirmedFlush(sql, "it_ack"), "second commit delivered but unacknowledged: stays at ack");
            assertTrue(initial <= end1);
            st.acknowledge(end2);
            // Idle: WAL from an unpublished table moves the server's sent position; keepalives confirm it.
            int commitsBefore = h.commitEnds.size();
            s.sql("postgres", "INSERT INTO it_other VALUES (1); INSERT INTO it_other VALUES (2)");
            long walAfter = StreamSupport.currentWal(sql, s.majorVersion());
            if (s.majorVersion() < 15) {
                // 10-14 send empty Begin/Commit pairs for other tables' transactions: acknowledge them too.
                waitUntil("empty transaction", WAIT, () -> h.commitEnds.size() > commitsBefore);
                st.acknowledge(h.commitEnds.get(h.commitEnds.size() - 1));
            }
            waitUntil("idle slot advances past the acknowledged commit", WAIT,
                    () -> quiet(() -> confirmedFlush(sql, "it_ack") > end2));
            assertTrue(confirmedFlush(sql, "it_ack") <= Math.max(walAfter, StreamSupport.currentWal(sql, s.majorVersion())));
            await(st.stop());
            await(repl.dropReplicationSlot("it_ack", false));
        } finally {
            s.sql("postgres", "DROP PUBLICATION it_ack_pub; DROP TABLE it_ack; DROP TABLE it_other");
        }
    }

    @PgMatrixTest
    void resumeRedeliversExactlyTheUnacknowledged(PgServer s) throws Exception {
        setup(s, "it_res", "it_res_pub");
        long ack;
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            createLogicalSlot(repl, "it_res", false);
            RecordingHandler h1 = new RecordingHandler();
            LogicalReplicationStream st = repl.startLogical(opts("it_res", "it_res_pub").build(), h1);
            await(st.started());
            for (int i = 1; i <= 3; i++) s.sql("postgres", "INSERT INTO it_res VALUES (" + i + ", 'v')");
            waitUntil("3 commits", WAIT, () -> h1.commitEnds.size() >= 3);
            ack = h1.commitEnds.get(0);
            long acked = ack;
            st.acknowledge(acked);
            waitUntil("ack visible", WAIT, () -> st.acknowledgedLsn() == acked);
            // Abrupt end: the connection dies without a clean stop.
            repl.close();
            Throwable end = failure(st.completion());
            assertInstanceOf(io.pgrepl.client.stream.ReplicationConnectionLostException.class, end);
            // The application closed it, and the error says so: nobody should look for a network fault.
            assertTrue(end.getMessage().contains("closed by the application"), end.getMessage());
        }
        Thread.sleep(300); // let the old walsender release the slot
        try (PgConnection repl2 = connect(s, ReplicationMode.DATABASE)) {
            RecordingHandler h2 = new RecordingHandler();
            // Resume from the application's durable position; the server may resend from an older confirmed_flush.
            LogicalReplicationStream st2 = LogicalReplicationStream.start(repl2, opts("it_res", "it_res_pub").build(), h2, ack);
            await(st2.started());
            s.sql("postgres", "INSERT INTO it_res VALUES (4, 'v')");
            waitUntil("redelivery", WAIT, () -> h2.inserts.contains("4"));
            assertEquals(List.of("2", "3", "4"), h2.inserts, "exactly the unacknowledged transactions, then new ones");
            await(st2.stop());
            await(repl2.dropReplicationSlot("it_res", false));
        } finally {
            s.sql("postgres", "DROP PUBLICATION it_res_pub; DROP TABLE it_res");
        }
    }

    /**
     * The application is slow: its handler pauses reading on the first row (the event loop must
     * not block) and another thread resumes after 10 s = 5 x wal_sender_timeout. Status updates
     * keep going out from the event-loop timer while nothing is read, so the walsender keeps
     * getting replies (pg_stat_replication.reply_time advances during the pause, 12+) and never
     * times out; then every row arrives.
     */
    @PgMatrixTest(newestAndOldest = true) // slow (10 s), and the same on every major
    void applicationPausingInItsHandlerOutlivesWalSenderTimeout(PgServer s) throws Exception {
        setup(s, "it_slow", "it_slow_pub");
        java.util.concurrent.CountDownLatch paused = new java.util.concurrent.CountDownLatch(1);
        RecordingHandler h = new RecordingHandler() {
            @Override
            public void onInsert(io.pgrepl.codec.pgoutput.InsertMessage m) {
                super.onInsert(m);
                if (paused.getCount() > 0) {
                    stream.pauseReading();
                    paused.countDown();
                }
            }
        };
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            createLogicalSlot(repl, "it_slow", false);
            LogicalReplicationStream st = repl.startLogical(opts("it_slow", "it_slow_pub").autoAcknowledge(true)
                    .statusInterval(Duration.ofMillis(500)).build(), h);
            await(st.started());
            s.sql("postgres", "INSERT INTO it_slow SELECT g, repeat('x', 1000) FROM generate_series(1, 1000) g");
            assertTrue(paused.await(30, java.util.concurrent.TimeUnit.SECONDS));
            long pausedAt = System.nanoTime();
            Thread resumer = new Thread(() -> {
                try {
                    Thread.sleep(10_000);
                } catch (InterruptedException e) {
                    return;
                }
                st.resumeReading();
            }, "it-resumer");
            resumer.start();
            Set<String> replyTimes = new HashSet<>();
            while (System.nanoTime() - pausedAt < 9_000_000_000L) {
                if (s.majorVersion() >= 12) {
                    String t = await(sql.query("SELECT reply_time FROM pg_stat_replication WHERE application_name IS NOT NULL"
                            + " AND pid = (SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'it_slow')")).rows()
                            .stream().map(r -> r.get(0)).filter(java.util.Objects::nonNull).findFirst().orElse(null);
                    if (t != null) replyTimes.add(t);
                }
                Thread.sleep(500);
            }
            assertTrue(h.inserts.size() < 1000, "still paused: " + h.inserts.size() + " rows");
            assertFalse(st.completion().toCompletableFuture().isDone(), "stream still up");
            if (s.majorVersion() >= 12) {
                assertTrue(replyTimes.size() >= 8, "replies kept reaching the walsender during the pause: " + replyTimes);
            }
            resumer.join();
            waitUntil("rows after resume", WAIT, () -> h.inserts.size() == 1000);
            await(st.stop());
            await(repl.dropReplicationSlot("it_slow", false));
        } finally {
            s.sql("postgres", "DROP PUBLICATION it_slow_pub; DROP TABLE it_slow");
        }
    }

    /**
     * The other way round: a client that sends nothing (status interval 60 s) and reads nothing
     * (paused) for longer than wal_sender_timeout (2 s). The walsender logs a replication timeout
     * and closes the socket without an ErrorResponse: the stream sees EOF and fails with
     * {@link ReplicationConnectionLostException}, not a server error and not a shutdown.
     */
    @PgMatrixTest(newestAndOldest = true) // slow (10 s), and the same on every major
    void walSenderTimeoutEndsASilentClientWithEof(PgServer s) throws Exception {
        setup(s, "it_mute2", "it_mute2_pub");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            createLogicalSlot(repl, "it_mute2", false);
            LogicalReplicationStream st = repl.startLogical(opts("it_mute2", "it_mute2_pub")
                    .statusInterval(Duration.ofSeconds(60)).build(), new RecordingHandler());
            await(st.started());
            st.pauseReading();
            long timeoutsBefore = StreamSupport.serverLog(s).lines().filter(l -> l.contains("replication timeout")).count();
            waitUntil("the walsender's replication timeout", WAIT, () -> quiet(() -> StreamSupport.serverLog(s).lines()
                    .filter(l -> l.contains("replication timeout")).count() > timeoutsBefore));
            st.resumeReading(); // reading again finds the EOF
            Throwable end = failure(st.completion());
            assertInstanceOf(io.pgrepl.client.stream.ReplicationConnectionLostException.class, end, "EOF: " + end);
            assertFalse(repl.isOpen());
        } finally {
            StreamSupport.dropWhenInactive(s, "it_mute2");
            s.sql("postgres", "DROP PUBLICATION it_mute2_pub; DROP TABLE it_mute2");
        }
    }

    @PgMatrixTest
    void startErrorKeepsConnectionUsableAndStopThenDropOnSameConnection(PgServer s) throws Exception {
        setup(s, "it_stop", "it_stop_pub");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            LogicalReplicationStream missing = repl.startLogical(opts("it_no_such_slot", "it_stop_pub").build(), new RecordingHandler());
            ReplicationServerErrorException e = assertInstanceOf(ReplicationServerErrorException.class, failure(missing.started()));
            assertEquals("42704", e.sqlState());
            assertTrue(e.beforeCopy());
            createLogicalSlot(repl, "it_stop", false);
            RecordingHandler h = new RecordingHandler();
            LogicalReplicationStream st = repl.startLogical(opts("it_stop", "it_stop_pub").autoAcknowledge(true).build(), h);
            await(st.started());
            s.sql("postgres", "INSERT INTO it_stop VALUES (1, 'a')");
            waitUntil("insert", WAIT, () -> h.inserts.size() == 1);
            await(st.stop());
            assertTrue(repl.isOpen());
            await(repl.dropReplicationSlot("it_stop", false));
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                assertEquals("0", await(sql.query("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'it_stop'"))
                        .singleRow().get(0));
            }
        } finally {
            s.sql("postgres", "DROP PUBLICATION it_stop_pub; DROP TABLE it_stop");
        }
    }

    @PgMatrixTest
    void physicalStreamReceivesWal(PgServer s) throws Exception {
        try (PgConnection phys = connect(s, ReplicationMode.PHYSICAL)) {
            var created = await(phys.createReplicationSlot(CreateSlotOptions.physical("it_phys").withReserveWal(true)));
            long start = await(phys.identifySystem()).xlogPos() & ~0xFFFFFFL; // segment start: surely still on disk
            AtomicLong bytes = new AtomicLong();
            AtomicLong highest = new AtomicLong();
            PhysicalReplicationStream st = phys.startPhysical(PhysicalReplicationOptions.of("it_phys", start),
                    new PhysicalStreamHandler() {
                        @Override
                        public void onWal(long walStart, long serverWalEnd, long sendTime, ByteBuf data) { // the slice face
                            bytes.addAndGet(data.readableBytes());
                            highest.accumulateAndGet(walStart + data.readableBytes(), Math::max);
                        }
                    });
            await(st.started());
            s.sql("postgres", "CREATE TABLE IF NOT EXISTS it_phys_t (id int); INSERT INTO it_phys_t SELECT generate_series(1, 100)");
            long target;
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                target = StreamSupport.currentWal(sql, s.majorVersion());
            }
            waitUntil("WAL up to the insert", WAIT, () -> highest.get() >= target);
            assertTrue(bytes.get() > 0);
            st.acknowledge(target);
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                waitUntil("restart_lsn follows the flush", WAIT, () -> quiet(() -> Lsn.parse(await(sql.query(
                        "SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = 'it_phys'")).singleRow().get(0)) >= target));
            }
            await(st.stop());
            assertTrue(st.timelineSwitch().isEmpty());
            await(phys.dropReplicationSlot("it_phys", false));
            assertEquals("it_phys", created.slotName());
        } finally {
            s.sql("postgres", "DROP TABLE IF EXISTS it_phys_t");
        }
    }

    private static long confirmedFlushOf(PgServer s, String slot) throws Exception {
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            return confirmedFlush(sql, slot);
        }
    }

    interface Check {
        boolean get() throws Exception;
    }

    static boolean quiet(Check c) {
        try {
            return c.get();
        } catch (Exception e) {
            return false;
        }
    }
}
