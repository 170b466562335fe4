package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.kafka.connect.offsets.DebeziumOffsets;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Debezium 3.6.1 and pgrepl under one connector name in one real Connect worker, on the same slot,
 * publication and topics: Debezium copies and streams under concurrent inserts, updates, deletes
 * and key changes and starts an incremental snapshot; its connector class is switched to pgrepl's
 * mid-stream (pgrepl takes its offsets over, reads its unfinished incremental snapshot again and
 * runs one of its own); then back to Debezium. Every topic rebuilt by key equals its source table,
 * and Debezium's JDBC sink (its released plugin, isolated on the worker's plugin.path) rebuilds the
 * tables exactly on another server from topics written by both connectors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DebeziumTakeoverTest {
    private static final String DEBEZIUM = "io.debezium.connector.postgresql.PostgresConnector";
    private static final int ITEMS = 3000;
    private static final int LINES = 400;

    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();
    private PgServer sink;

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("takeover", 1, JdbcSinkPlugin.workerProps());
        sink = PgServer.start(PgServer.builder().version(18).build());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
        if (sink != null) sink.close();
    }

    PgServer server(int major) {
        return servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    private static Map<String, String> common(String p) {
        Map<String, String> c = new HashMap<>();
        c.put("tasks.max", "1");
        c.put("topic.prefix", p);
        c.put("slot.name", p + "_slot");
        c.put("publication.name", p + "_pub");
        c.put("publication.autocreate.mode", "disabled");
        c.put("snapshot.mode", "initial");
        c.put("signal.data.collection", "public." + p + "_signal");
        c.put("incremental.snapshot.chunk.size", "20");
        c.put("poll.interval.ms", "100");
        c.put("topic.creation.default.replication.factor", "1");
        c.put("topic.creation.default.partitions", "1");
        return c;
    }

    static Map<String, String> debezium(PgServer pg, String p) {
        Map<String, String> c = common(p);
        c.put("connector.class", DEBEZIUM);
        c.put("plugin.name", "pgoutput");
        c.put("database.hostname", "127.0.0.1");
        c.put("database.port", Integer.toString(pg.port()));
        c.put("database.user", pg.superuser().name());
        c.put("database.password", pg.superuser().password());
        c.put("database.dbname", "postgres");
        c.put("table.include.list", "public\\." + p + "_items,public\\." + p + "_OrderLines");
        return c;
    }

    static Map<String, String> pgrepl(PgServer pg, String p) {
        Map<String, String> c = common(p);
        c.put("connector.class", PgreplSourceConnector.class.getName());
        c.put("database.url", "postgresql://" + pg.superuser().name() + "@127.0.0.1:" + pg.port() + "/postgres");
        c.put("database.password", pg.superuser().password());
        c.put("table.include.list", "public\\." + p + "_(items|OrderLines)");
        return c;
    }

    private void setUp(PgServer pg, String p) throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_items (id int PRIMARY KEY, n numeric(12,3), ts timestamp(3),"
                + " vc varchar(40), tags text[], big text, note text);"
                + "ALTER TABLE " + p + "_items ALTER big SET STORAGE EXTERNAL;"
                + "CREATE TABLE \"" + p + "_OrderLines\" (\"Id\" int PRIMARY KEY, \"Qty\" int NOT NULL, \"Price\" numeric(10,2),"
                + " \"Label\" varchar(20));"
                + "CREATE TABLE " + p + "_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                + "INSERT INTO " + p + "_items SELECT g, (g * 1.125)::numeric(12,3), timestamp '2026-01-01 00:00:00.123' + g * interval '1 minute',"
                + " 'vc-' || g, CASE WHEN g % 7 = 0 THEN NULL ELSE ARRAY['a' || g, NULL, 'b,\"q\"'] END,"
                + " CASE WHEN g % 50 = 0 THEN (SELECT string_agg(md5(g::text || k::text), '') FROM generate_series(1, 300) k) END,"
                + " CASE WHEN g % 3 = 0 THEN NULL ELSE 'note ' || g END FROM generate_series(1, " + ITEMS + ") g;"
                + "INSERT INTO \"" + p + "_OrderLines\" SELECT g, g % 9, (g / 4.0)::numeric(10,2), 'L' || g FROM generate_series(1, " + LINES + ") g;"
                + "CREATE PUBLICATION " + p + "_pub FOR TABLE " + p + "_items, \"" + p + "_OrderLines\", " + p + "_signal");
    }

    /** Concurrent transactions of inserts, updates, deletes and key changes, until stopped (bounded). */
    private static final class Load implements AutoCloseable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger transactions = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread;

        Load(PgServer pg, String p) {
            thread = new Thread(() -> {
                Random r = new Random(major(p));
                int nextItem = ITEMS + 1;
                int nextLine = 100_000;
                try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture()
                        .get(30, TimeUnit.SECONDS)) {
                    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
                    while (!stop.get() && System.nanoTime() < end && transactions.get() < 60_000) {
                        StringBuilder tx = new StringBuilder("BEGIN;");
                        for (int k = r.nextInt(4); k >= 0; k--) {
                            int item = 1 + r.nextInt(nextItem);
                            int line = 1 + r.nextInt(LINES + 200);
                            switch (r.nextInt(8)) {
                                case 0 -> tx.append("INSERT INTO ").append(p).append("_items VALUES (").append(nextItem++)
                                        .append(", ").append(r.nextInt(1_000_000)).append(".5, now()::timestamp(3), 'new', ARRAY['x', NULL], ")
                                        .append(r.nextBoolean() ? "(SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 300))" : "NULL")
                                        .append(", NULL);");
                                case 1, 2 -> tx.append("UPDATE ").append(p).append("_items SET n = n + 0.001, vc = 'u' || ")
                                        .append(r.nextInt(1000)).append(", note = CASE WHEN note IS NULL THEN 'set' END, tags = tags || 'u'::text,")
                                        .append(" big = CASE WHEN big IS NULL THEN NULL ELSE md5(big) || big END WHERE id = ").append(item).append(';');
                                case 3 -> tx.append("DELETE FROM ").append(p).append("_items WHERE id = ").append(item).append(';');
                                case 4 -> tx.append("INSERT INTO \"").append(p).append("_OrderLines\" VALUES (").append(nextLine++)
                                        .append(", 1, 9.99, NULL) ON CONFLICT DO NOTHING;");
                                case 5 -> tx.append("UPDATE \"").append(p).append("_OrderLines\" SET \"Qty\" = \"Qty\" + 1, \"Label\" = 'q'")
                                        .append(" WHERE \"Id\" = ").append(line).append(';');
                                case 6 -> tx.append("DELETE FROM \"").append(p).append("_OrderLines\" WHERE \"Id\" = ").append(line).append(';');
                                default -> tx.append("UPDATE \"").append(p).append("_OrderLines\" SET \"Id\" = ").append(nextLine++)
                                        .append(" WHERE \"Id\" = ").append(line).append(';'); // a key change
                            }
                        }
                        c.query(tx.append("COMMIT").toString()).toCompletableFuture().get(30, TimeUnit.SECONDS);
                        transactions.incrementAndGet();
                        Thread.sleep(10 + r.nextInt(20)); // about 40 transactions a second: the switches happen under load, the topics stay small
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "takeover-load-" + p);
            thread.start();
        }

        /** Waits until {@code n} transactions committed; fails with the load's own failure if it stopped. */
        void await(int n) throws InterruptedException {
            while (transactions.get() < n) {
                if (!thread.isAlive()) throw new AssertionError("the load stopped at " + transactions.get(), failure.get());
                Thread.sleep(50);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(TimeUnit.MINUTES.toMillis(1));
            if (failure.get() != null) throw new AssertionError("the load failed", failure.get());
        }
    }

    private static int major(String p) {
        return Integer.parseInt(p.substring(2));
    }

    private static boolean byPgrepl(Change c) {
        return c.value() != null && c.value().getStruct("source").getString("version").startsWith("pgrepl-");
    }

    private static String snapshotMark(Change c) {
        return c.value() == null ? null : c.value().getStruct("source").getString("snapshot");
    }

    /**
     * One consumer over a connector's topics for the whole test, reading on from where it was: the
     * topics grow under load, and reading them from the start for every check would not keep up.
     */
    private final class Reader implements AutoCloseable {
        private final org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer;
        private final org.apache.kafka.connect.json.JsonConverter keys = ConnectHarness.converter(true);
        private final org.apache.kafka.connect.json.JsonConverter values = ConnectHarness.converter(false);
        final List<Change> all = new ArrayList<>();
        private final Set<String> seen = new HashSet<>();

        Reader(String p) {
            consumer = connect.kafka().createConsumer(Map.of("group.id", "takeover-" + p, "auto.offset.reset", "earliest",
                    "metadata.max.age.ms", "500"));
            consumer.subscribe(java.util.regex.Pattern.compile(p + "\\.public\\..*"));
        }

        /** Reads on until {@code done} holds for everything read so far. */
        List<Change> until(java.util.function.Predicate<List<Change>> done) {
            long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            while (!done.test(all)) {
                if (System.nanoTime() > end) throw new AssertionError("timed out; read " + all.size() + " records");
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    // A rebalance (a new topic matching the pattern) may rewind: each record counts once.
                    if (!seen.add(r.topic() + "/" + r.partition() + "/" + r.offset())) continue;
                    var k = r.key() == null ? null : keys.toConnectData(r.topic(), r.key()).value();
                    var v = r.value() == null ? null : values.toConnectData(r.topic(), r.value()).value();
                    all.add(new Change(r.topic(), r.partition(), r.offset(), (Struct) k, (Struct) v, r.value(), r.key()));
                }
            }
            return all;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    private Map<String, Object> offsets(String name) {
        var o = connect.connectorOffsets(name).offsets();
        assertEquals(1, o.size(), "one source partition: " + o);
        assertEquals(Map.of("server", name), o.get(0).partition(), "Debezium's partition, {server: topic.prefix}");
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) o.get(0).offset();
        return m;
    }

    /** Stops the connector (its tasks commit their offsets first): the first step of a switch. */
    private void stopAndWait(String name) throws InterruptedException {
        connect.stopConnector(name);
        ConnectHarness.awaitStopped(connect, name, "the connector stopped");
    }

    private void resumeAs(String name, Map<String, String> config) throws InterruptedException {
        connect.configureConnector(name, config);
        connect.resumeConnector(name);
        ConnectHarness.awaitRunning(connect, name, 1, "the connector runs as " + config.get("connector.class"));
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void switchesBothWaysWithNothingLost(int major) throws Exception {
        PgServer pg = server(major);
        String p = "tk" + major;
        setUp(pg, p);
        int snapshotRows = ITEMS + LINES;
        try (Reader reader = new Reader(p)) {
            run(pg, p, snapshotRows, reader);
        }
    }

    private void run(PgServer pg, String p, int snapshotRows, Reader reader) throws Exception {

        // 1. Debezium: initial snapshot, then streaming under load, then an incremental snapshot.
        connect.configureConnector(p, debezium(pg, p));
        ConnectHarness.awaitRunning(connect, p, 1, "Debezium runs");
        reader.until(all -> all.stream().filter(c -> "r".equals(c.op())).count() >= snapshotRows);
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        List<Change> all;
        try (Load load = new Load(pg, p)) {
            load.await(100);
            EndToEndTest.sql(pg, "INSERT INTO " + p + "_signal VALUES ('dbz-1', 'execute-snapshot',"
                    + " '{\"data-collections\": [\"public." + p + "_items\"], \"type\": \"incremental\"}')");
            reader.until(cs -> cs.stream().anyMatch(c -> "incremental".equals(snapshotMark(c))));
            // Paused, Debezium keeps the snapshot in its offsets however fast it reads: the switch finds it under way.
            EndToEndTest.sql(pg, "INSERT INTO " + p + "_signal VALUES ('dbz-2', 'pause-snapshot', NULL)");
            int paused = load.transactions.get();
            load.await(paused + 100);
            stopAndWait(p);
            Map<String, Object> dbz = offsets(p);
            System.out.println("[takeover] Debezium's stored offsets: " + dbz);
            assertFalse(Position.pgrepl(dbz), "Debezium's own offsets: " + dbz);
            assertFalse(DebeziumOffsets.incremental(dbz).isEmpty(), "Debezium's incremental snapshot was under way: " + dbz);
            long dbzCommit = ((Number) dbz.get(DebeziumOffsets.LSN_COMMIT)).longValue();

            // 2. pgrepl under the same name: no new copy, Debezium's incremental snapshot read again, one of its own.
            resumeAs(p, pgrepl(pg, p));
            EndToEndTest.sql(pg, "INSERT INTO " + p + "_signal VALUES ('pgrepl-1', 'execute-snapshot',"
                    + " '{\"data-collections\": [\"public." + p + "_OrderLines\"], \"type\": \"incremental\"}')");
            int before = load.transactions.get();
            List<Change> mid = reader.until(cs -> cs.stream().anyMatch(c -> byPgrepl(c) && "incremental".equals(snapshotMark(c))
                    && c.topic().endsWith("_OrderLines")) && cs.stream().anyMatch(c -> byPgrepl(c) && "incremental".equals(snapshotMark(c))
                    && c.topic().endsWith("_items")) && cs.stream().filter(c -> byPgrepl(c) && "false".equals(snapshotMark(c))).count() > 200);
            assertTrue(load.transactions.get() > before, "the load went on");
            for (Change c : mid) {
                if (!byPgrepl(c) || !"false".equals(snapshotMark(c))) continue;
                long lsn = c.value().getStruct("source").getInt64("lsn");
                assertTrue(Long.compareUnsigned(lsn, dbzCommit) >= 0, "pgrepl sent again a transaction Debezium's committed offset"
                        + " covers (commit " + io.pgrepl.codec.Lsn.format(lsn) + " before " + io.pgrepl.codec.Lsn.format(dbzCommit) + ")");
            }
            stopAndWait(p);
            Map<String, Object> ours = offsets(p);
            System.out.println("[takeover] pgrepl's stored offsets: " + ours);
            assertTrue(Position.pgrepl(ours), "pgrepl's offsets: " + ours);
            assertNotNull(ours.get(DebeziumOffsets.LSN_COMMIT), "with Debezium's keys: " + ours);
            long ourCommit = ((Number) ours.get(DebeziumOffsets.LSN_COMMIT)).longValue();
            Set<Long> coveredXids = new HashSet<>();
            for (Change c : reader.all) {
                if (!byPgrepl(c) || !"false".equals(snapshotMark(c))) continue;
                Struct s = c.value().getStruct("source");
                if (Long.compareUnsigned(s.getInt64("lsn"), ourCommit) < 0) coveredXids.add(s.getInt64("txId"));
            }

            // 3. Back to Debezium under the same name.
            resumeAs(p, debezium(pg, p));
            int back = load.transactions.get();
            load.await(back + 300);
            load.close();
            assertTrue(load.transactions.get() > 600, "the load ran: " + load.transactions.get());
            EndToEndTest.sql(pg, "INSERT INTO " + p + "_items (id, vc) VALUES (-1, 'end'); INSERT INTO \"" + p
                    + "_OrderLines\" VALUES (-1, 0, 0, 'end')");
            all = reader.until(cs -> cs.stream().filter(c -> c.value() != null && !byPgrepl(c)
                    && c.value().getStruct("after") != null && "end".equals(endMark(c))).count() >= 2);
            for (Change c : all) {
                if (c.value() == null || byPgrepl(c) || c.offset() < 0) continue;
                Struct s = c.value().getStruct("source");
                if ("false".equals(s.getString("snapshot")) && coveredXids.contains(s.getInt64("txId"))
                        && isAfterSwitchBack(c, all)) {
                    throw new AssertionError("Debezium sent again transaction " + s.getInt64("txId")
                            + ", which pgrepl's committed offset covers");
                }
            }
        }

        // No new copy by either connector after the first: every initial snapshot read precedes pgrepl's first record.
        long copies = all.stream().filter(c -> "r".equals(c.op()) && !"incremental".equals(snapshotMark(c))).count();
        Map<String, Long> numericSchemas = new TreeMap<>();
        for (Change c : all) {
            if (c.value() == null || !c.topic().endsWith("_items") || c.value().getStruct("after") == null) continue;
            var schema = c.value().getStruct("after").schema();
            numericSchemas.merge(c.value().getStruct("source").getString("version") + "/" + snapshotMark(c) + " "
                    + schema.field("n").schema().name() + ", " + schema.field("ts").schema().name(), 1L, Long::sum);
        }
        System.out.println("[takeover] numeric(12,3), timestamp(3) as: " + numericSchemas);
        Map<String, Long> reads = new TreeMap<>();
        for (Change c : all) {
            if ("r".equals(c.op())) reads.merge(c.value().getStruct("source").getString("version") + "/" + snapshotMark(c), 1L, Long::sum);
        }
        assertEquals(snapshotRows, copies, "one initial snapshot only; reads by version/source.snapshot: " + reads);
        assertTrue(all.stream().noneMatch(c -> byPgrepl(c) && "r".equals(c.op()) && !"incremental".equals(snapshotMark(c))));
        assertTrue(all.stream().anyMatch(DebeziumTakeoverTest::byPgrepl), "pgrepl wrote records");

        // Every topic rebuilt by key equals its table.
        assertSameRows(source(pg, itemsSql(p + "_items")), rebuild(all, p + ".public." + p + "_items", "id"), "items");
        assertSameRows(source(pg, linesSql("\"" + p + "_OrderLines\"")), rebuild(all, p + ".public." + p + "_OrderLines", "Id"),
                "order lines");
        fieldDiff(all, p);

        // Debezium's JDBC sink rebuilds both tables on another server from topics written by both connectors.
        String sinkName = p + "-sink";
        connect.configureConnector(sinkName, jdbcSink(p));
        ConnectHarness.awaitRunning(connect, sinkName, 1, "the JDBC sink runs");
        Map<String, String> wantItems = source(pg, itemsSql(p + "_items"));
        Map<String, String> wantLines = source(pg, linesSql("\"" + p + "_OrderLines\""));
        // The wait follows the sink: it ends when the sink stops changing its tables for two minutes (a
        // loaded machine's sink can take many minutes over thousands of upserts), within half an hour.
        long ceiling = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        long quietUntil = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        Map<String, String> gotItems = Map.of();
        Map<String, String> gotLines = Map.of();
        while (System.nanoTime() < Math.min(ceiling, quietUntil)) {
            Map<String, String> items = sinkRows(itemsSql("public." + p + "_items"));
            Map<String, String> lines = sinkRows(linesSql("public.\"" + p + "_OrderLines\""));
            if (!items.equals(gotItems) || !lines.equals(gotLines)) quietUntil = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            gotItems = items;
            gotLines = lines;
            if (gotItems.equals(wantItems) && gotLines.equals(wantLines)) break;
            Thread.sleep(500);
        }
        assertSameRows(wantItems, gotItems, "items through the JDBC sink");
        assertSameRows(wantLines, gotLines, "order lines through the JDBC sink");
        connect.deleteConnector(sinkName);
        connect.deleteConnector(p);
    }

    /** Equal maps, or the first differing keys: the source's row, then the rebuilt one (null: missing). */
    static void assertSameRows(Map<String, String> want, Map<String, String> got, String what) {
        if (want.equals(got)) return;
        Set<String> keys = new java.util.TreeSet<>(want.keySet());
        keys.addAll(got.keySet());
        StringBuilder b = new StringBuilder(what + ": " + want.size() + " rows in the source, " + got.size() + " rebuilt; first differences:");
        int n = 0;
        for (String k : keys) {
            if (java.util.Objects.equals(want.get(k), got.get(k))) continue;
            b.append("\n  ").append(k).append(": ").append(want.get(k)).append("\n  ").append(" ".repeat(k.length())).append("  ").append(got.get(k));
            if (++n == 10) break;
        }
        throw new AssertionError(b.toString());
    }

    /** True when {@code c} comes after the last pgrepl record of its topic. */
    private static boolean isAfterSwitchBack(Change c, List<Change> all) {
        long lastPgrepl = all.stream().filter(x -> x.topic().equals(c.topic()) && byPgrepl(x)).mapToLong(Change::offset).max().orElse(-1);
        return c.offset() > lastPgrepl;
    }

    private static String endMark(Change c) {
        Struct after = c.value().getStruct("after");
        var f = after.schema().field(c.topic().endsWith("_items") ? "vc" : "Label");
        return f == null ? null : after.getString(f.name());
    }

    /** Each row as one canonical text, by key: the server renders the values. */
    static String itemsSql(String table) {
        return "SELECT id::text, concat_ws('|', coalesce(n::text, '<null>'), coalesce((extract(epoch FROM ts) * 1000)::bigint::text, '<null>'),"
                + " coalesce(vc, '<null>'), coalesce(array_to_string(tags, ',', '<null>'), '<null>'), coalesce(md5(big), '<null>'),"
                + " coalesce(note, '<null>')) FROM " + table;
    }

    static String linesSql(String table) {
        return "SELECT \"Id\"::text, concat_ws('|', \"Qty\"::text, coalesce(\"Price\"::text, '<null>'), coalesce(\"Label\", '<null>'))"
                + " FROM " + table;
    }

    private static Map<String, String> source(PgServer pg, String sql) throws Exception {
        Map<String, String> m = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, sql)) m.put(r.get(0), r.get(1));
        return m;
    }

    private Map<String, String> sinkRows(String sql) {
        try {
            return source(sink, sql);
        } catch (Exception e) {
            return Map.of(); // the sink has not created the table yet
        }
    }

    /** The topic applied in order: a create, update or read puts {@code after}; a delete or tombstone removes the key. */
    private static Map<String, String> rebuild(List<Change> all, String topic, String keyField) {
        Map<String, String> m = new TreeMap<>();
        for (Change c : all) {
            if (!c.topic().equals(topic)) continue;
            String key = String.valueOf(c.key().get(keyField));
            if (c.value() == null || "d".equals(c.op())) {
                m.remove(key);
                continue;
            }
            Struct a = c.value().getStruct("after");
            m.put(key, topic.endsWith("_items") ? item(a) : line(a));
        }
        return m;
    }

    private static String item(Struct a) {
        java.math.BigDecimal n = decimal(a.get("n"));
        Number ts = (Number) a.get("ts");
        // By the record's own schema, as a consumer reads it: Timestamp is milliseconds, MicroTimestamp microseconds.
        if (ts != null && "io.debezium.time.MicroTimestamp".equals(a.schema().field("ts").schema().name())) {
            ts = Math.floorDiv(ts.longValue(), 1000L);
        }
        @SuppressWarnings("unchecked")
        List<String> tags = (List<String>) a.get("tags");
        String big = a.getString("big");
        return String.join("|", n == null ? "<null>" : n.toPlainString(), ts == null ? "<null>" : Long.toString(ts.longValue()),
                or(a.getString("vc")), tags == null ? "<null>" : String.join(",", tags.stream().map(DebeziumTakeoverTest::or).toList()),
                big == null ? "<null>" : md5(big), or(a.getString("note")));
    }

    /** A Decimal, or an io.debezium.data.VariableScaleDecimal struct (scale, unscaled bytes). */
    static java.math.BigDecimal decimal(Object v) {
        if (v == null || v instanceof java.math.BigDecimal) return (java.math.BigDecimal) v;
        Struct s = (Struct) v;
        return new java.math.BigDecimal(new java.math.BigInteger(s.getBytes("value")), s.getInt32("scale"));
    }

    private static String line(Struct a) {
        java.math.BigDecimal price = decimal(a.get("Price"));
        return String.join("|", String.valueOf(a.get("Qty")), price == null ? "<null>" : price.toPlainString(), or(a.getString("Label")));
    }

    private static String or(String s) {
        return s == null ? "<null>" : s;
    }

    private static String md5(String s) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Map<String, String> jdbcSink(String p) {
        Map<String, String> c = JdbcSinkPlugin.config(sink, "postgres");
        c.put("topics", p + ".public." + p + "_items," + p + ".public." + p + "_OrderLines");
        // Topic p.public.T to table T (in the sink's public schema).
        c.put("transforms", "route");
        c.put("transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter");
        c.put("transforms.route.regex", "[^.]+\\.[^.]+\\.(.*)");
        c.put("transforms.route.replacement", "$1");
        return c;
    }

    /** What differs between the two connectors' records of the same table, printed for the migration guide. */
    private static void fieldDiff(List<Change> all, String p) {
        String topic = p + ".public." + p + "_OrderLines";
        Change dbz = null;
        Change ours = null;
        for (Change c : all) {
            if (!c.topic().equals(topic) || !"u".equals(c.op())) continue;
            if (byPgrepl(c)) ours = ours == null ? c : ours;
            else dbz = dbz == null ? c : dbz;
        }
        if (dbz == null || ours == null) return;
        StringBuilder b = new StringBuilder("[takeover] record differences on ").append(topic).append('\n');
        diff(b, "key schema", dbz.key().schema(), ours.key().schema());
        diff(b, "envelope", dbz.value().schema(), ours.value().schema());
        diff(b, "source", dbz.value().getStruct("source").schema(), ours.value().getStruct("source").schema());
        diff(b, "after", dbz.value().getStruct("after").schema(), ours.value().getStruct("after").schema());
        b.append("  source values: debezium ").append(dbz.value().getStruct("source")).append("\n                 pgrepl   ")
                .append(ours.value().getStruct("source")).append('\n');
        b.append("  before: debezium ").append(dbz.value().get("before")).append("\n          pgrepl   ").append(ours.value().get("before"));
        System.out.println(b);
    }

    private static void diff(StringBuilder b, String what, org.apache.kafka.connect.data.Schema d, org.apache.kafka.connect.data.Schema o) {
        b.append("  ").append(what).append(": name ").append(d.name()).append(" / ").append(o.name()).append(", version ")
                .append(d.version()).append(" / ").append(o.version()).append(", optional ").append(d.isOptional()).append(" / ")
                .append(o.isOptional()).append('\n');
        for (var f : d.fields()) {
            var g = o.field(f.name());
            if (g == null) {
                b.append("    ").append(f.name()).append(": only Debezium's\n");
            } else if (!f.schema().equals(g.schema()) || f.index() != g.index()) {
                b.append("    ").append(f.name()).append(": ").append(describe(f)).append(" / ").append(describe(g)).append('\n');
            }
        }
        for (var g : o.fields()) {
            if (d.field(g.name()) == null) b.append("    ").append(g.name()).append(": only pgrepl's\n");
        }
    }

    private static String describe(org.apache.kafka.connect.data.Field f) {
        var s = f.schema();
        return "#" + f.index() + " " + s.type() + (s.name() == null ? "" : " " + s.name()) + (s.isOptional() ? " optional" : " required")
                + (s.defaultValue() == null ? "" : " default=" + s.defaultValue()) + (s.parameters() == null ? "" : " " + s.parameters());
    }
}
