package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The slot is confirmed by completed checkpoints: past the captured changes the job emitted, and,
 * while the captured table is idle, past the WAL of other tables through the heartbeat, so the slot
 * does not hold it.
 */
class SlotConfirmationTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(1).build());

    private static PgServer pg;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.start(PgServer.builder().version(18).build());
        Fixture.sql(pg, "CREATE TABLE captured (id int PRIMARY KEY, v text); CREATE TABLE elsewhere (id serial PRIMARY KEY, v text)");
    }

    @AfterAll
    static void stop() {
        if (pg != null) pg.close();
    }

    private static long confirmed() throws Exception {
        List<io.pgrepl.client.Row> r = Fixture.query(pg, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'confirm_me'");
        return r.isEmpty() || r.get(0).get(0) == null ? 0 : Lsn.parse(r.get(0).get(0));
    }

    private static long walInsert() throws Exception {
        return Lsn.parse(Fixture.query(pg, "SELECT pg_current_wal_insert_lsn()::text").get(0).get(0));
    }

    /** Waits until the slot is confirmed at or past {@code lsn}. */
    private static void awaitConfirmed(long lsn, String what) throws Exception {
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (Long.compareUnsigned(confirmed(), lsn) < 0) {
            assertTrue(System.nanoTime() < deadline, what + ": the slot stayed at " + Lsn.format(confirmed()) + ", not past " + Lsn.format(lsn));
            Thread.sleep(100);
        }
    }

    @Test
    void checkpointsConfirmEmittedChangesAndHeartbeatsIdleWal() throws Exception {
        PgreplSource<TextChange> source = PgreplSource.builder().url(pg.url(pg.superuser(), "postgres")).slotName("confirm_me")
                .tables("captured").startupMode(StartupMode.LATEST_OFFSET).lsnCommitDelay(0).heartbeat(Duration.ofMillis(300))
                .build(new TextChange.Deserializer());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl").sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("confirmation");
        try {
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (Fixture.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = 'confirm_me' AND active").isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "the stream did not start");
                Thread.sleep(100);
            }
            long created = confirmed();
            Fixture.sql(pg, "INSERT INTO captured VALUES (1, 'one')");
            long afterCaptured = walInsert();
            awaitConfirmed(afterCaptured - 1, "a captured change");
            // Only other tables change now: no captured change moves the position, the heartbeat does.
            for (int i = 0; i < 20; i++) Fixture.sql(pg, "INSERT INTO elsewhere (v) VALUES ('x')");
            long afterElsewhere = walInsert();
            awaitConfirmed(afterElsewhere - 1, "WAL of other tables");
            System.out.printf("slot confirmed from %s past %s and %s%n", Lsn.format(created), Lsn.format(afterCaptured), Lsn.format(afterElsewhere));
        } finally {
            job.cancel().get();
        }
    }
}
