package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flink SQL over {@code 'connector' = 'pgrepl'}: a GROUP BY over the changelog (+I, -U, +U, -D)
 * of a table being written gives what the same query gives in PostgreSQL; the metadata columns
 * carry the table and commit time; options the connector does not honour fail at planning.
 */
class SqlTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static PgServer pg;

    @BeforeAll
    static void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
    }

    @AfterAll
    static void stop() {
        if (pg != null) pg.close();
    }

    private static String ddl(String flinkName, String table, String slot, String extra) {
        return "CREATE TABLE " + flinkName + " (id INT, amount DECIMAL(12, 3), placed TIMESTAMP(3), note VARCHAR(40),"
                + " tags ARRAY<STRING>, n BIGINT, memo STRING,"
                + " op_ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL, tbl STRING METADATA FROM 'table_name' VIRTUAL,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'pgrepl', 'hostname' = '127.0.0.1',"
                + " 'port' = '" + pg.port() + "', 'username' = '" + pg.superuser().name() + "', 'password' = '"
                + pg.superuser().password() + "', 'database-name' = 'postgres', 'schema-name' = 'public', 'table-name' = '"
                + table + "', 'slot.name' = '" + slot + "', 'scan.incremental.snapshot.chunk.size' = '2000'" + extra + ")";
    }

    private static StreamTableEnvironment tableEnv() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(4);
        env.enableCheckpointing(300);
        return StreamTableEnvironment.create(env);
    }

    @Test
    void groupByCountEqualsPostgres() throws Exception {
        String table = "Sql Orders";
        int rows = 20_000;
        Fixture.createTable(pg, "public.\"" + table + "\"", rows);
        StreamTableEnvironment t = tableEnv();
        t.executeSql(ddl("orders", table, "sql_orders", ""));
        String query = "SELECT MOD(id, 10) AS bucket, COUNT(*) AS cnt, SUM(amount) AS total, COUNT(note) AS notes FROM orders GROUP BY MOD(id, 10)";

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = Fixture.workload(pg, "public.\"" + table + "\"", rows, running, ops, failed);
        Map<String, String> result = new TreeMap<>();
        TableResult r = t.executeSql(query);
        long[] retractions = {0};
        AtomicReference<Map<String, String>> expected = new AtomicReference<>();
        try {
            long stopAt = System.nanoTime() + Duration.ofSeconds(4).toNanos();
            Drain.until(r.collect(), row -> {
                String bucket = String.valueOf(row.getField(0));
                switch (row.getKind()) {
                    case INSERT, UPDATE_AFTER -> result.put(bucket, row.getField(1) + " " + row.getField(2) + " " + row.getField(3));
                    case UPDATE_BEFORE, DELETE -> {
                        result.remove(bucket);
                        retractions[0]++;
                    }
                }
                if (running.get() && System.nanoTime() > stopAt) {
                    SnapshotAndStreamTest.stop(running, workload);
                    expected.set(postgres(query.replace("orders", "public.\"" + table + "\"").replace("MOD(id, 10)", "id % 10")));
                }
                return expected.get() != null && expected.get().equals(result);
            }, Duration.ofMinutes(2), () -> "Flink's result " + result + " is not PostgreSQL's " + expected.get());
            assertEquals(expected.get(), result);
        } finally {
            running.set(false);
            workload.join(30_000);
        }
        assertNull(failed.get(), () -> "workload failed: " + failed.get());
        assertTrue(retractions[0] > 0, "the changelog retracted nothing: no update reached the aggregate");
        System.out.printf("sql: %s after %d writes, %d retractions%n", result, ops.get(), retractions[0]);
    }

    /**
     * An upsert table started at the latest offset holds only what was streamed since; a row in its
     * signal table reads it again while writes go on, and the same GROUP BY then gives what
     * PostgreSQL gives.
     */
    @Test
    void aSignalledReadMakesAnUpsertTableWhole() throws Exception {
        String table = "Sql Signalled";
        int rows = 5_000;
        Fixture.createTable(pg, "public.\"" + table + "\"", rows);
        Fixture.sql(pg, "CREATE TABLE public.sql_signals (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))");
        StreamTableEnvironment t = tableEnv();
        t.executeSql(ddl("signalled", table, "sql_signalled", ", 'changelog-mode' = 'upsert', 'scan.startup.mode' = 'latest-offset',"
                + " 'signal.data.collection' = 'public.sql_signals'"));
        String query = "SELECT MOD(id, 10) AS bucket, COUNT(*) AS cnt, SUM(amount) AS total, COUNT(note) AS notes FROM signalled"
                + " GROUP BY MOD(id, 10)";

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = Fixture.workload(pg, "public.\"" + table + "\"", rows, running, ops, failed);
        Map<String, String> result = new TreeMap<>();
        TableResult r = t.executeSql(query);
        AtomicReference<Map<String, String>> expected = new AtomicReference<>();
        AtomicBoolean signalled = new AtomicBoolean();
        Thread signaller = new Thread(() -> {
            try {
                // a signal committed before the stream runs would not reach it
                while (Fixture.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = 'sql_signalled' AND active").isEmpty()) {
                    Thread.sleep(100);
                }
                Thread.sleep(500);
                Fixture.sql(pg, "INSERT INTO public.sql_signals VALUES ('sql-1', 'execute-snapshot',"
                        + " '{\"data-collections\": [\"public.\\\"Sql Signalled\\\"\"]}')");
                signalled.set(true);
                Thread.sleep(3_000);
                SnapshotAndStreamTest.stop(running, workload);
                expected.set(postgres(query.replace("signalled", "public.\"" + table + "\"").replace("MOD(id, 10)", "id % 10")));
            } catch (Exception e) {
                failed.set(e);
            }
        }, "signaller");
        signaller.start();
        try {
            Drain.until(r.collect(), row -> {
                String bucket = String.valueOf(row.getField(0));
                switch (row.getKind()) {
                    case INSERT, UPDATE_AFTER -> result.put(bucket, row.getField(1) + " " + row.getField(2) + " " + row.getField(3));
                    case UPDATE_BEFORE, DELETE -> result.remove(bucket);
                }
                return expected.get() != null && expected.get().equals(result);
            }, Duration.ofMinutes(2), () -> "Flink's result " + result + " is not PostgreSQL's " + expected.get());
        } finally {
            running.set(false);
            workload.join(30_000);
            signaller.join(30_000);
        }
        assertNull(failed.get(), () -> "failed: " + failed.get());
        assertTrue(signalled.get(), "the signal was sent");
        assertEquals(expected.get(), result);
        System.out.printf("sql signal: %s after %d writes%n", result, ops.get());
    }

    private static Map<String, String> postgres(String query) {
        Map<String, String> m = new HashMap<>();
        try {
            for (io.pgrepl.client.Row row : Fixture.query(pg, query)) m.put(row.get(0), row.get(1) + " " + row.get(2) + " " + row.get(3));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return new TreeMap<>(m);
    }

    /**
     * A column dropped while the job streams moves the published columns after it: the rows that
     * follow are still read by name (the columns of a varchar(n), a numeric(p,s) and a text array
     * behind a dropped one and under a name that needs quoting), not by where the last row had them.
     */
    @Test
    void aDroppedColumnMovesTheColumnsAfterIt() throws Exception {
        Fixture.sql(pg, "CREATE TABLE public.\"Drop Cols\" (id int PRIMARY KEY, gone text, \"Note\" varchar(12), amount numeric(8,2),"
                + " tags text[]); ALTER TABLE public.\"Drop Cols\" REPLICA IDENTITY FULL; INSERT INTO public.\"Drop Cols\" VALUES (1, 'g1', 'n1', 1.50, '{a,NULL}')");
        StreamTableEnvironment t = tableEnv();
        t.executeSql("CREATE TABLE drops (id INT, `Note` VARCHAR(12), amount DECIMAL(8, 2), tags ARRAY<STRING>, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('connector' = 'pgrepl', 'url' = '" + pg.url(pg.superuser(), "postgres") + "', 'table-name' = 'Drop Cols',"
                + " 'slot.name' = 'sql_drops')");
        List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SELECT id, `Note`, amount, tags FROM drops").collect()) {
            Drain.until(it, row -> {
                got.add(row.getKind().shortString() + " " + row.getField(0) + " " + row.getField(1) + " " + row.getField(2) + " "
                        + java.util.Arrays.toString((String[]) row.getField(3)));
                if (got.size() == 1) {
                    SnapshotAndStreamTest.sql(pg, "INSERT INTO public.\"Drop Cols\" VALUES (2, 'g2', 'n2', 2.25, '{b}');"
                            + " ALTER TABLE public.\"Drop Cols\" DROP COLUMN gone, ADD COLUMN extra text;"
                            + " INSERT INTO public.\"Drop Cols\" VALUES (3, 'n3', 3.75, '{c,NULL}', 'x3')");
                }
                return got.size() >= 3;
            }, Duration.ofMinutes(2), got::toString);
        }
        assertEquals(List.of("+I 1 n1 1.50 [a, null]", "+I 2 n2 2.25 [b]", "+I 3 n3 3.75 [c, null]"), got);
    }

    @Test
    void metadataAndTypesOfOneRow() throws Exception {
        String table = "Meta Rows";
        Fixture.createTable(pg, "public.\"" + table + "\"", 3);
        StreamTableEnvironment t = tableEnv();
        t.executeSql(ddl("meta", table, "sql_meta", ", 'scan.startup.mode' = 'snapshot'"));
        List<Row> rows;
        try (CloseableIterator<Row> it = t.executeSql("SELECT id, amount, placed, note, tags, tbl, op_ts FROM meta").collect()) {
            rows = new java.util.ArrayList<>();
            it.forEachRemaining(rows::add);
        }
        rows.sort(java.util.Comparator.comparing(row -> (Integer) row.getField(0)));
        assertEquals(3, rows.size(), rows::toString);
        Row two = rows.get(1);
        // Expected values are the fixture's literals: id 2 has amount 2 * 1.125, placed 2001-01-01 + 2 * 1.234 s, tags {a2,NULL,"x,y \"q\""}.
        assertEquals(new java.math.BigDecimal("2.250"), two.getField(1));
        assertEquals(java.time.LocalDateTime.of(2024, 1, 1, 0, 0, 2, 468_000_000), two.getField(2));
        assertEquals("nöte 2", two.getField(3));
        assertEquals(List.of("a2", "null", "x,y \"q\""), java.util.Arrays.stream((String[]) two.getField(4)).map(String::valueOf).toList());
        assertEquals(table, two.getField(5));
        assertEquals(java.time.Instant.EPOCH, two.getField(6), "rows read by the snapshot carry op_ts 0");
        // startup mode snapshot ends by itself and drops its slot
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (!Fixture.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = 'sql_meta'").isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "the slot of a finished snapshot was not dropped");
            Thread.sleep(100);
        }
    }

    @Test
    void optionsTheConnectorDoesNotHonourFailAtPlanning() {
        StreamTableEnvironment t = tableEnv();
        t.executeSql(ddl("bad_plugin", "x", "s1", ", 'decoding.plugin.name' = 'wal2json'"));
        assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM bad_plugin"), "wal2json");
        t.executeSql(ddl("bad_debezium", "x", "s2", ", 'debezium.snapshot.mode' = 'never'"));
        ValidationException e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM bad_debezium"));
        assertTrue(messages(e).contains("debezium.snapshot.mode"), messages(e));
        t.executeSql(ddl("bad_unknown", "x", "s3", ", 'scan.incremental.snapshot.chunk.key-column' = 'id'"));
        e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM bad_unknown"));
        assertTrue(messages(e).contains("chunk.key-column"), messages(e));
        t.executeSql(ddl("bad_mode", "x", "s4", ", 'scan.startup.mode' = 'timestamp'"));
        e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM bad_mode"));
        assertTrue(messages(e).contains("timestamp"), messages(e));
        t.executeSql("CREATE TABLE no_key (id INT) WITH ('connector' = 'pgrepl', 'url' = 'postgresql://u@h/d', 'table-name' = 'x',"
                + " 'slot.name' = 's5', 'changelog-mode' = 'upsert')");
        e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM no_key"));
        assertTrue(messages(e).contains("PRIMARY KEY"), messages(e));
        assertTrue(!messages(e).contains(pg.superuser().password()));
        t.executeSql(ddl("signal_all", "x", "s7", ", 'signal.data.collection' = 'public.sig'"));
        e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM signal_all"));
        assertTrue(messages(e).contains("signal.data.collection") && messages(e).contains("upsert"), messages(e));
        t.executeSql(ddl("lost_all", "x", "s8", ", 'slot.lost.handling' = 'snapshot'"));
        e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM lost_all"));
        assertTrue(messages(e).contains("slot.lost.handling") && messages(e).contains("upsert"), messages(e));
        t.executeSql(ddl("lost_bad", "x", "s9", ", 'slot.lost.handling' = 'when_needed'"));
        e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM lost_bad"));
        assertTrue(messages(e).contains("when_needed"), messages(e));
        t.executeSql(ddl("unaligned", "x", "s6", ""));
        t.getConfig().set("execution.checkpointing.unaligned.enabled", "true");
        e = assertThrows(ValidationException.class, () -> t.executeSql("SELECT * FROM unaligned"));
        assertTrue(messages(e).contains("aligned checkpoints"), messages(e));
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) b.append(c.getMessage()).append(" | ");
        return b.toString();
    }
}
