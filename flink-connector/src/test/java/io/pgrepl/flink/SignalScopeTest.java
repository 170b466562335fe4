package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The source's tables are its capture scope for signals: an {@code execute-snapshot} row naming a
 * table of the publication that the source does not capture (exactly, or by a regular expression),
 * one that holds rows, reads nothing of it and emits nothing of it; a signal for a captured table,
 * sent after, is read, so signals do reach the source. The server's statistics show no scan of
 * the table left out.
 */
class SignalScopeTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(new Configuration()).setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final Map<Integer, PgServer> SERVERS = new HashMap<>();

    static List<Integer> versions() {
        return SnapshotAndStreamTest.versions();
    }

    @AfterAll
    static void stopServers() {
        SERVERS.values().forEach(PgServer::close);
    }

    private static long scans(PgServer pg, String schema, String table) throws Exception {
        return Long.parseLong(Fixture.query(pg, "SELECT seq_scan + coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE schemaname = '"
                + schema + "' AND relname = '" + table + "'").get(0).get(0));
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("versions")
    void aSignalForATableTheSourceDoesNotCaptureReadsNothing(int version) throws Exception {
        PgServer pg = SERVERS.computeIfAbsent(version, v -> PgServer.start(PgServer.builder().version(v).build()));
        String open = "public.\"Scope Open\"";
        String signals = "public.scope_signals";
        Fixture.sql(pg, "CREATE SCHEMA scope_hr");
        Fixture.createTable(pg, "scope_hr.secrets", 245);
        Fixture.createTable(pg, open, 300);
        Fixture.sql(pg, "CREATE TABLE " + signals + " (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                + "CREATE PUBLICATION scope_pub FOR TABLE scope_hr.secrets, " + open + ", " + signals);
        PgreplSource<TextChange> source = PgreplSource.builder()
                .url(pg.url(pg.superuser(), "postgres"))
                .slotName("signal_scope")
                .publication("scope_pub")
                .publicationAutocreate(false)
                .tables(open)
                .signalTable(signals)
                .startupMode(StartupMode.LATEST_OFFSET)
                .chunkSize(100)
                .build(new TextChange.Deserializer());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        CloseableIterator<TextChange> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl")
                .executeAndCollect("signal-scope-" + version);
        // Marks until one is streamed (the job starts at the latest offset): then the signals go.
        AtomicBoolean streaming = new AtomicBoolean();
        Thread marks = new Thread(() -> {
            for (int id = -5; !streaming.get() && id > -500; id--) {
                SnapshotAndStreamTest.sql(pg, "INSERT INTO " + open + " (id, amount, memo) VALUES (" + id + ", 0, 'stream runs')");
                sleep(500);
            }
        }, "marks");
        marks.start();
        boolean[] signalled = {false};
        boolean[] ended = {false};
        long[] openReads = {0};
        long[] leftOut = {0};
        long[] before = {-1};
        Drain.until(it, c -> {
            if (c.table.startsWith("scope_hr")) leftOut[0]++;
            if (c.table.equals("public.Scope Open") && c.op.equals("READ")) openReads[0]++;
            if (!signalled[0] && c.table.equals("public.Scope Open")) {
                streaming.set(true);
                // Taken once the job streams, seconds after the setup: the statistics have settled by then
                // (PostgreSQL 10's collector takes them in asynchronously).
                before[0] = scansNow(pg, "scope_hr", "secrets");
                SnapshotAndStreamTest.sql(pg, "INSERT INTO " + signals + " VALUES ('s1', 'execute-snapshot',"
                        + " '{\"data-collections\": [\"scope_hr.secrets\", \"scope_hr\\\\..*\"], \"type\": \"incremental\"}');"
                        + "INSERT INTO " + signals + " VALUES ('s2', 'execute-snapshot',"
                        + " '{\"data-collections\": [\"public.\\\"Scope Open\\\"\"], \"type\": \"incremental\"}')");
                signalled[0] = true;
            }
            if (!ended[0] && openReads[0] >= 300) {
                SnapshotAndStreamTest.sql(pg, "INSERT INTO " + open + " (id, amount, memo) VALUES (-1000, 0, 'end')");
                ended[0] = true;
            }
            return ended[0] && c.op.equals("INSERT") && c.after != null && "-1000".equals(c.after.get("id"));
        }, Duration.ofMinutes(3), () -> openReads[0] + " reads of the captured table, signalled " + signalled[0]);
        streaming.set(true);
        marks.join(10_000);
        it.close();
        assertTrue(openReads[0] >= 300, "the captured table was read by its signal: " + openReads[0]);
        assertEquals(0, leftOut[0], "something of the table the source does not capture was emitted");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (scans(pg, "public", "Scope Open") == 0 && System.nanoTime() < deadline) Thread.sleep(200);
        assertTrue(scans(pg, "public", "Scope Open") > 0, "the captured table's reads show in the statistics");
        assertEquals(before[0], scans(pg, "scope_hr", "secrets"), "the table the source does not capture was scanned");
    }

    private static long scansNow(PgServer pg, String schema, String table) {
        try {
            return scans(pg, schema, table);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
