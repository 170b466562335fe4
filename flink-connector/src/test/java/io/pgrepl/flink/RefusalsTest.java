package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the source refuses, with a message that says why and what to do: settings it cannot honour
 * at build time, a retracting changelog over a table without REPLICA IDENTITY
 * FULL, and a slot past the guard's fail threshold. Every message keeps the password out.
 */
class RefusalsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static PgServer pg;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.start(PgServer.builder().version(18).build());
        Fixture.sql(pg, "CREATE TABLE refused (id int PRIMARY KEY, v text); INSERT INTO refused SELECT g, 'v' FROM generate_series(1, 100) g");
    }

    @AfterAll
    static void stop() {
        if (pg != null) pg.close();
    }

    private static PgreplSourceBuilder builder(String slot) {
        return PgreplSource.builder().url(pg.url(pg.superuser(), "postgres")).slotName(slot).tables("public.refused");
    }

    /** Runs the source to its failure (no restarts) and returns the whole chain of messages. */
    private static String failure(PgreplSource<TextChange> source) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl").sinkTo(new DiscardingSink<>());
        Exception e = assertThrows(Exception.class, () -> env.executeAsync("refused").getJobExecutionResult().get(2, TimeUnit.MINUTES));
        StringBuilder b = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) b.append(c.getMessage()).append(" | ");
        String all = b.toString();
        assertTrue(!all.contains(pg.superuser().password()), "a message carries the password");
        return all;
    }

    @Test
    void retractingChangelogNeedsReplicaIdentityFull() {
        String m = failure(builder("refuse_identity").requireFullReplicaIdentity(true).build(new TextChange.Deserializer()));
        assertTrue(m.contains("REPLICA IDENTITY DEFAULT") && m.contains("REPLICA IDENTITY FULL"), m);
    }

    @Test
    void slotGuardFailsTheJobPastItsThreshold() {
        String m = failure(builder("refuse_guard").slotGuard(0, 1).slotMetricsInterval(Duration.ofMillis(200))
                .build(new TextChange.Deserializer()));
        assertTrue(m.contains("refuse_guard") && m.contains("retained"), m);
    }

    @Test
    void settingsThatCannotWorkFailAtBuild() {
        assertThrows(IllegalArgumentException.class, () -> PgreplSource.builder().url("postgresql://u@h/d").slotName("s").build(new TextChange.Deserializer()),
                "no table");
        assertThrows(IllegalArgumentException.class, () -> PgreplSource.builder().url("postgresql://u@h/d").slotName("Bad-Slot")
                .tables("t").build(new TextChange.Deserializer()));
        assertThrows(IllegalArgumentException.class, () -> PgreplSource.builder().url("postgresql://u@h/d?nosuchparam=1").slotName("s")
                .tables("t").build(new TextChange.Deserializer()));
        assertThrows(IllegalArgumentException.class, () -> PgreplSource.builder().url("postgresql://u@h/d").hostname("h").slotName("s")
                .tables("t").build(new TextChange.Deserializer()));
        assertThrows(IllegalArgumentException.class, () -> PgreplSource.builder().url("postgresql://u@h/d").slotName("s")
                .tables("t").chunkSize(0).build(new TextChange.Deserializer()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PgreplSource.builder()
                .url("postgresql://u@h/d").slotName("s").tables("public.t", "public.sig").signalTable("public.sig")
                .build(new TextChange.Deserializer()));
        assertTrue(e.getMessage().contains("signal table"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PgreplSource.builder().url("postgresql://u@h/d").slotName("s")
                .tables("t").signalTable("public.sig").startupMode(StartupMode.SNAPSHOT).build(new TextChange.Deserializer()));
        assertTrue(e.getMessage().contains("snapshot"), e.getMessage());
    }

    /** A signal table the stream could never see fails the job at its start, saying what to run. */
    @Test
    void aSignalTableOutsideThePublicationIsRefused() throws Exception {
        Fixture.sql(pg, "CREATE TABLE sig_outside (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                + "CREATE PUBLICATION refuse_signal_pub FOR TABLE refused");
        String m = failure(builder("refuse_signal").publication("refuse_signal_pub").signalTable("public.sig_outside")
                .build(new TextChange.Deserializer()));
        assertTrue(m.contains("ALTER PUBLICATION") && m.contains("sig_outside"), m);
        m = failure(builder("refuse_signal2").signalTable("public.no_such_signals").build(new TextChange.Deserializer()));
        assertTrue(m.contains("does not exist") && m.contains("CREATE TABLE"), m);
    }
}
