package io.pgrepl.it.ha;

import static io.pgrepl.it.ha.HaSupport.await;
import static io.pgrepl.it.ha.HaSupport.host;
import static io.pgrepl.it.ha.HaSupport.majors;
import static io.pgrepl.it.ha.HaSupport.waitStreaming;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.TargetSessionAttrs;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.ReplicationServerErrorException;
import io.pgrepl.client.stream.SlotLostAfterFailoverException;
import io.pgrepl.it.ha.HaSupport.Recorder;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.StopMode;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Before PostgreSQL 17 a logical slot does not survive failover: the promoted standby has no
 * slot. The reconnecting stream must end with a typed, non-retryable error naming that cause,
 * not retry forever and not carry on from some other position. Run on 16.
 */
class SlotLostBefore17Test {
    private static final String SLOT = "ha_lost";

    @TestFactory
    Stream<DynamicTest> slotMissingAfterFailoverIsATypedError() {
        return majors(16).stream().map(v -> dynamicTest("PG " + v, () -> lost(v)));
    }

    private void lost(int major) throws Exception {
        try (PgServer primary = PgServer.builder().version(major).setting("wal_sender_timeout", "5s").start()) {
            primary.sql("postgres", "CREATE TABLE ha_t (id int PRIMARY KEY); CREATE PUBLICATION ha_pub FOR TABLE ha_t");
            try (PgServer standby = primary.startStandby("ha_standby")) {
                try (PgConnection repl = HaSupport.replication(primary)) {
                    await(repl.createReplicationSlot(CreateSlotOptions.logical(SLOT, "pgoutput")
                            .withSnapshot(SnapshotMode.NOTHING)));
                }
                Recorder rec = new Recorder();
                ReconnectingLogicalStream r = ReconnectingLogicalStream.start(
                        HaSupport.multiHost(primary, List.of(host(primary), host(standby)))
                                .targetSessionAttrs(TargetSessionAttrs.PRIMARY).replication(ReplicationMode.DATABASE).build(),
                        LogicalReplicationOptions.builder(SLOT).publications("ha_pub").build(),
                        rec, new ReconnectPolicy(Duration.ofMillis(200), Duration.ofSeconds(1), 2, 0.2, 120));
                rec.owner = r;
                primary.sql("postgres", "INSERT INTO ha_t SELECT generate_series(1, 10)");
                waitStreaming(r, "the first rows", Duration.ofSeconds(60), () -> rec.distinct() == 10);

                primary.stop(StopMode.IMMEDIATE);
                standby.promote();

                Throwable t = HaSupport.failure(r.completion(), Duration.ofSeconds(90));
                SlotLostAfterFailoverException e = assertInstanceOf(SlotLostAfterFailoverException.class, t);
                assertEquals(SLOT, e.slotName());
                assertEquals(standby.host() + ":" + standby.port(), e.server());
                assertTrue(e.getMessage().contains("did not survive a failover"), e.getMessage());
                assertTrue(e.getMessage().contains("after streaming from " + primary.host() + ":" + primary.port()), e.getMessage());
                assertTrue(!e.getMessage().contains(primary.superuser().password()), "no password in the message");
                assertTrue(e.getMessage().contains("only from PostgreSQL 17"), e.getMessage());
                assertEquals("42704", assertInstanceOf(ReplicationServerErrorException.class, e.getCause()).sqlState());
                assertTrue(r.reconnects() >= 1, "it reconnected to the promoted standby before giving up");
            }
        }
    }
}
