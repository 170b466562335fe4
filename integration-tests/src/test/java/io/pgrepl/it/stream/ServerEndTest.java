package io.pgrepl.it.stream;

import static io.pgrepl.it.stream.StreamSupport.await;
import static io.pgrepl.it.stream.StreamSupport.confirmedFlush;
import static io.pgrepl.it.stream.StreamSupport.connect;
import static io.pgrepl.it.stream.StreamSupport.createLogicalSlot;
import static io.pgrepl.it.stream.StreamSupport.dropWhenInactive;
import static io.pgrepl.it.stream.StreamSupport.failure;
import static io.pgrepl.it.stream.StreamSupport.serverLog;
import static io.pgrepl.it.stream.StreamSupport.waitUntil;
import static io.pgrepl.it.stream.StreamSupport.walsenderPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.ReplicationConnectionLostException;
import io.pgrepl.client.stream.ReplicationServerErrorException;
import io.pgrepl.client.stream.ReplicationShutdownException;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.ServerSignal;
import io.pgrepl.testkit.StopMode;
import io.pgrepl.testkit.junit.PgMatrixTest;
import io.pgrepl.testkit.junit.PgServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distinct ways a server ends a live logical stream, each on a real server: a clean fast
 * shutdown (CommandComplete in copy mode: {@link ReplicationShutdownException}), an admin
 * terminate (FATAL 57P01: {@link ReplicationServerErrorException}) and a silent peer (a SIGSTOPped
 * walsender: {@link ReplicationConnectionLostException} from the receive timeout).
 * wal_sender_timeout is long here (30 s) so that it never ends a stream by itself: a shutdown
 * that finishes in a few seconds was let go by the client's flush confirmation, not by a timeout.
 */
@PgServerConfig(settings = {"wal_sender_timeout=30s"})
class ServerEndTest {
    private static final Logger log = LoggerFactory.getLogger(ServerEndTest.class);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static void setup(PgServer s, String table, String pub) throws Exception {
        s.sql("postgres", "DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table
                + " (id int PRIMARY KEY); CREATE PUBLICATION " + pub + " FOR TABLE " + table);
    }

    private static LogicalReplicationOptions.Builder opts(String slot, String pub) {
        return LogicalReplicationOptions.builder(slot).publications(pub).statusInterval(Duration.ofMillis(200));
    }

    /**
     * pg_ctl stop -m fast with a live stream: the walsender sends everything, then waits until
     * the client's flush reaches its sent position (pinging with reply-requested keepalives). It must wait while the application has not
     * acknowledged the last transaction (we never confirm for it), and end with CommandComplete
     * in copy mode (no CopyDone, no ErrorResponse) as soon as the acknowledgement is reported.
     */
    @PgMatrixTest
    void fastShutdownWaitsForTheApplicationThenEndsWithShutdown(PgServer s) throws Exception {
        setup(s, "it_shut", "it_shut_pub");
        RecordingHandler h = new RecordingHandler();
        long end2;
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            createLogicalSlot(repl, "it_shut", false);
            // A long status interval: the final flush goes out because the server asked, not
            // because a periodic update happened to come by.
            LogicalReplicationStream st = repl.startLogical(opts("it_shut", "it_shut_pub")
                    .statusInterval(Duration.ofSeconds(25)).build(), h);
            await(st.started());
            s.sql("postgres", "INSERT INTO it_shut VALUES (1)");
            waitUntil("commit 1", WAIT, () -> h.commitEnds.size() == 1);
            st.acknowledge(h.commitEnds.get(0));
            s.sql("postgres", "INSERT INTO it_shut VALUES (2)");
            waitUntil("commit 2", WAIT, () -> h.commitEnds.size() == 2);
            end2 = h.commitEnds.get(1);
            int timeoutsBefore = count(serverLog(s), "replication timeout");

            long updatesBefore = updatesSent(st);
            long t0 = System.nanoTime();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> s.stop(StopMode.FAST));
            // Waiting is observed, not timed: the walsender keeps asking (reply-requested keepalives)
            // and the client keeps answering, so the replies pile up while the server waits. The
            // status interval is 25 s: these are replies, not periodic updates.
            waitUntil("the waiting walsender's keepalives", WAIT,
                    () -> updatesSent(st) - updatesBefore > 20 || stopping.isDone());
            Thread.sleep(1000); // a window in which a busy ping-pong would show (the server waits for the ack)
            assertFalse(stopping.isDone(), "the server must wait for the unacknowledged commit's flush");
            assertFalse(st.completion().toCompletableFuture().isDone(), "stream still up while the server waits");
            assertTrue(st.flushedLsn() < end2, "nothing beyond the application's acknowledgement was confirmed");

            long waitedMs = (System.nanoTime() - t0) / 1_000_000;
            long updatesWhileWaiting = updatesSent(st) - updatesBefore;
            // The waiting walsender pings again after every answer: replies are spaced (>= 10 ms, so
            // at most one per 10 ms however loaded the machine), not a busy loop (answered at once,
            // PG 10-18 went through 20-90 thousand a second).
            assertTrue(updatesWhileWaiting <= waitedMs / 10 + 20,
                    updatesWhileWaiting + " keepalive replies while the server waited " + waitedMs + " ms");
            long ackAt = System.nanoTime();
            st.acknowledge(end2);
            Throwable end = failure(st.completion());
            long afterAckMs = (System.nanoTime() - ackAt) / 1_000_000;
            // Well inside wal_sender_timeout (30 s), and the server log shows no timeout (below).
            assertTrue(afterAckMs < 20_000, "shutdown finished " + afterAckMs + " ms after the acknowledgement");
            assertInstanceOf(ReplicationShutdownException.class, end, "clean shutdown, not an error or EOF: " + end);
            stopping.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(st.flushedLsn() >= end2, "the final flush confirmed the acknowledged commit");
            assertFalse(repl.isOpen(), "the walsender closed the connection after CommandComplete");
            assertEquals(timeoutsBefore, count(serverLog(s), "replication timeout"), "no wal_sender_timeout involved");
            log.info("PG{}: fast shutdown with a live stream took {} ms, {} ms after the ack; final flush {};"
                    + " {} keepalive replies while the server waited {} ms",
                    s.majorVersion(), ms, afterAckMs, Lsn.format(st.flushedLsn()), updatesWhileWaiting, waitedMs);
        }
        s.start();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            long persisted = confirmedFlush(sql, "it_shut");
            // Recorded, not asserted: whether the last confirmation survives the restart is the server's business.
            log.info("PG{}: confirmed_flush_lsn after restart {} (acknowledged {}): {}", s.majorVersion(),
                    Lsn.format(persisted), Lsn.format(end2), persisted >= end2 ? "persisted" : "older: resend expected");
            RecordingHandler h2 = new RecordingHandler();
            LogicalReplicationStream st2 = LogicalReplicationStream.start(repl, opts("it_shut", "it_shut_pub").build(), h2, end2);
            await(st2.started());
            s.sql("postgres", "INSERT INTO it_shut VALUES (3)");
            waitUntil("row 3", WAIT, () -> h2.inserts.contains("3"));
            assertEquals(List.of("3"), h2.inserts, "rows 1 and 2 were acknowledged before the shutdown");
            await(st2.stop());
            await(repl.dropReplicationSlot("it_shut", false));
        } finally {
            s.sql("postgres", "DROP PUBLICATION it_shut_pub; DROP TABLE it_shut");
        }
    }

    /** pg_terminate_backend on the walsender: FATAL 57P01 inside copy mode, a server error, not a shutdown. */
    @PgMatrixTest
    void adminTerminateIsAServerError(PgServer s) throws Exception {
        setup(s, "it_term", "it_term_pub");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            createLogicalSlot(repl, "it_term", false);
            LogicalReplicationStream st = repl.startLogical(opts("it_term", "it_term_pub").build(), new RecordingHandler());
            await(st.started());
            await(sql.query("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'it_term'"));
            ReplicationServerErrorException e = assertInstanceOf(ReplicationServerErrorException.class, failure(st.completion()));
            assertEquals("57P01", e.sqlState());
            assertFalse(e.beforeCopy());
            assertTrue(e.isTransient());
        } finally {
            dropWhenInactive(s, "it_term");
            s.sql("postgres", "DROP PUBLICATION it_term_pub; DROP TABLE it_term");
        }
    }

    /**
     * A walsender frozen with SIGSTOP keeps its socket open and says nothing. An idle but live
     * walsender says nothing either (it sends keepalives only when the client lags), so the
     * stream pings (a status update asking for a reply) at half the receive timeout: the idle
     * stream must survive several timeouts, the frozen one must fail within about one.
     */
    @PgMatrixTest(newestAndOldest = true) // the client's own timer: the major does not change it
    void silentWalsenderTripsTheReceiveTimeout(PgServer s) throws Exception {
        setup(s, "it_mute", "it_mute_pub");
        // Long enough that a loaded machine answers a ping well within half of it.
        Duration receiveTimeout = Duration.ofSeconds(2);
        long pid = 0;
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            createLogicalSlot(repl, "it_mute", false);
            LogicalReplicationStream st = repl.startLogical(opts("it_mute", "it_mute_pub").receiveTimeout(receiveTimeout)
                    .build(), new RecordingHandler());
            await(st.started());
            Thread.sleep(2 * receiveTimeout.toMillis());
            assertFalse(st.completion().toCompletableFuture().isDone(), "an idle, live walsender answers the pings");
            pid = walsenderPid(sql, "it_mute");
            assertTrue(pid > 0);
            s.signal(pid, ServerSignal.STOP);
            long updatesBefore = st.metrics() == null ? 0 : st.metrics().statusUpdatesSent();
            long t0 = System.nanoTime();
            Throwable end = failure(st.completion());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertInstanceOf(ReplicationConnectionLostException.class, end);
            assertTrue(end.getMessage().contains("receive timeout"), end.getMessage());
            // The receive timeout, not wal_sender_timeout (30 s) nor anything else, ended it: the
            // message says so, and it came long before the server would have given up.
            assertTrue(ms < 15_000, "receive timeout fired after " + ms + " ms");
            log.info("PG{}: receive timeout {} ms fired {} ms after SIGSTOP", s.majorVersion(), receiveTimeout.toMillis(), ms);
        } finally {
            if (pid > 0) s.signal(pid, ServerSignal.CONT);
            dropWhenInactive(s, "it_mute");
            s.sql("postgres", "DROP PUBLICATION it_mute_pub; DROP TABLE it_mute");
        }
    }

    /** Status updates sent, from the snapshot taken at the last one (null before any). */
    private static long updatesSent(LogicalReplicationStream st) {
        var m = st.metrics();
        return m == null ? 0 : m.statusUpdatesSent();
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) n++;
        return n;
    }
}
