package io.pgrepl.it.stream;

import static io.pgrepl.it.stream.StreamSupport.await;
import static io.pgrepl.it.stream.StreamSupport.confirmedFlush;
import static io.pgrepl.it.stream.StreamSupport.connect;
import static io.pgrepl.it.stream.StreamSupport.createLogicalSlot;
import static io.pgrepl.it.stream.StreamSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Acknowledgements that bypass {@link ReconnectingLogicalStream#acknowledge} (autoAcknowledge,
 * and the inner stream handed to onStarted) decide where a real reconnect resumes. The status
 * interval is an hour, so the server has not heard of them when its walsender is terminated
 * (pg_terminate_backend): it sends the acknowledged transaction again, and only the client's own
 * memory of the acknowledgement keeps it from the handler. One server, two slots, one per way.
 */
@PgTest
class ReconnectingAcknowledgementTest {

    /** Acknowledges each commit through the stream of its connection (not the reconnecting one). */
    private static final class InnerAcknowledging extends RecordingHandler {
        final AtomicInteger starts = new AtomicInteger();

        @Override
        public void onStarted(LogicalReplicationStream s) {
            super.onStarted(s);
            starts.incrementAndGet();
        }

        @Override
        public void onCommit(CommitMessage m) {
            super.onCommit(m);
            stream.acknowledge(m.endLsn());
        }
    }

    private static final class Counting extends RecordingHandler {
        final AtomicInteger starts = new AtomicInteger();

        @Override
        public void onStarted(LogicalReplicationStream s) {
            super.onStarted(s);
            starts.incrementAndGet();
        }
    }

    @Test
    @PgServerConfig(version = 18)
    void acknowledgementsSurviveAWalsenderTermination(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE it_ra (id int PRIMARY KEY); CREATE PUBLICATION it_ra_pub FOR TABLE it_ra");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            createLogicalSlot(repl, "it_ra_auto", false);
            createLogicalSlot(repl, "it_ra_inner", false);
        }
        ConnectionConfig cfg = ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .replication(ReplicationMode.DATABASE).build();
        ReconnectPolicy policy = new ReconnectPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2, 0.5, 20);
        Counting auto = new Counting();
        InnerAcknowledging inner = new InnerAcknowledging();
        ReconnectingLogicalStream a = ReconnectingLogicalStream.start(cfg, LogicalReplicationOptions.builder("it_ra_auto")
                .publications("it_ra_pub").autoAcknowledge(true).statusInterval(Duration.ofHours(1)).build(), auto, policy);
        ReconnectingLogicalStream b = ReconnectingLogicalStream.start(cfg, LogicalReplicationOptions.builder("it_ra_inner")
                .publications("it_ra_pub").statusInterval(Duration.ofHours(1)).build(), inner, policy);

        s.sql("postgres", "INSERT INTO it_ra VALUES (1)");
        waitUntil("row 1 on both", Duration.ofSeconds(30), () -> auto.commitEnds.size() == 1 && inner.commitEnds.size() == 1);
        long first = auto.commitEnds.get(0);
        assertEquals(first, inner.commitEnds.get(0));
        waitUntil("both acknowledged row 1", Duration.ofSeconds(10),
                () -> a.acknowledgedLsn() == first && b.acknowledgedLsn() == first);
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            // The server was not told: after the reconnect it sends row 1's transaction again.
            assertTrue(Long.compareUnsigned(confirmedFlush(sql, "it_ra_auto"), first) < 0);
            assertTrue(Long.compareUnsigned(confirmedFlush(sql, "it_ra_inner"), first) < 0);
        }
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            String killed = await(sql.query("SELECT count(*) FROM (SELECT pg_terminate_backend(active_pid) AS t"
                    + " FROM pg_replication_slots WHERE slot_name IN ('it_ra_auto', 'it_ra_inner')) x WHERE t")).singleRow().get(0);
            assertEquals("2", killed, "both walsenders were terminated");
        }
        waitUntil("both reconnected", Duration.ofSeconds(30), () -> auto.starts.get() == 2 && inner.starts.get() == 2);
        s.sql("postgres", "INSERT INTO it_ra VALUES (2)");
        waitUntil("row 2 on both", Duration.ofSeconds(30), () -> auto.inserts.contains("2") && inner.inserts.contains("2"));
        assertTrue(a.reconnects() >= 1 && b.reconnects() >= 1);
        assertEquals(List.of("1", "2"), auto.inserts, "row 1 not again: autoAcknowledge survived the reconnect");
        assertEquals(List.of("1", "2"), inner.inserts, "row 1 not again: the inner stream's acknowledgement survived");
        long second = auto.commitEnds.get(1);
        waitUntil("both acknowledged row 2", Duration.ofSeconds(10),
                () -> a.acknowledgedLsn() == second && b.acknowledgedLsn() == second);
        await(a.stop());
        await(b.stop());
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            // The last status update (at stop) carried what was acknowledged on both connections.
            assertEquals(second, confirmedFlush(sql, "it_ra_auto"));
            assertEquals(second, confirmedFlush(sql, "it_ra_inner"));
        }
    }
}
