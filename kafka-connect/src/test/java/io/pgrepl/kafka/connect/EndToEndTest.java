package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real PostgreSQL (18 and 10) to a real in-process Kafka through a real Connect worker: the tables
 * rebuilt from the topics equal the source tables, as PostgreSQL itself renders them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String PLACEHOLDER = "__debezium_unavailable_value";

    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("e2e", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    PgServer server(int major) {
        return servers.computeIfAbsent(major, m -> {
            var b = PgServer.builder().version(m);
            if (m >= 13) b.setting("logical_decoding_work_mem", "64kB");
            return PgServer.start(b.build());
        });
    }

    static Map<String, String> connectorConfig(PgServer pg, String prefix) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", PgreplSourceConnector.class.getName());
        c.put("tasks.max", "1");
        c.put("database.url", "postgresql://" + pg.superuser().name() + "@127.0.0.1:" + pg.port() + "/postgres");
        c.put("database.password", pg.superuser().password());
        c.put("slot.name", prefix + "_slot");
        c.put("publication.name", prefix + "_pub");
        c.put("publication.autocreate.mode", "filtered");
        c.put("table.include.list", "public\\." + prefix + "_.*");
        c.put("snapshot.mode", "never");
        c.put("topic.prefix", prefix);
        c.put("poll.interval.ms", "100");
        c.put("topic.creation.default.replication.factor", "1");
        c.put("topic.creation.default.partitions", "1");
        return c;
    }

    static void sql(PgServer pg, String sql) throws Exception {
        pg.sql("postgres", sql);
    }

    static List<Row> query(PgServer pg, String sql) throws Exception {
        try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture()
                .get(30, TimeUnit.SECONDS)) {
            return c.query(sql).toCompletableFuture().get(30, TimeUnit.SECONDS).rows();
        }
    }

    static void awaitSlotActive(PgServer pg, String slot) throws Exception {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < end) {
            List<Row> r = query(pg, "SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
            if (!r.isEmpty() && "t".equals(r.get(0).get(0))) return;
            Thread.sleep(100);
        }
        throw new AssertionError("slot " + slot + " never became active");
    }

    /** Types of the typed-values suite whose Debezium form PostgreSQL can render for comparison. */
    private static final String TYPES_DDL = """
            CREATE TABLE %1$s_types (id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, b bool, f8 float8,
              n numeric(20,5), nv numeric, t text, vc varchar(60), bc char(5), by bytea, u uuid, j jsonb,
              d date, ts timestamp, tz timestamptz, tm time, iv interval, ai int4[], at text[]);
            CREATE TABLE %1$s_misc (id int PRIMARY KEY, v text, big text, n int);
            CREATE TABLE %1$s_end (id int PRIMARY KEY);
            """;

    private static final String TYPES_ROWS = """
            INSERT INTO %1$s_types VALUES
             (1, -32768, -2147483648, '-9223372036854775808', true, '0.1', '-123456789012345.12345', '1e-100',
              'it''s "q" back\\slash	tab ünï 漢字 😀', 'abcdef', 'ab', '\\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
              '{"b": [1, {"c": "é😀"}], "a": null}', '2000-01-01', '1999-12-31 23:59:59.999999',
              '2024-06-30 23:59:59.123456+05:45', '24:00:00', '1 year 2 mons -3 days 04:05:06.789',
              '{1,NULL,-3}', ARRAY['a,b', '{c}', 'q"uote', NULL, 'NULL', '']),
             (2, 32767, 2147483647, 9223372036854775807, false, '1e308', '0.00001', '-12345678901234567890.000012345',
              '', 'x', 'abcde', '', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', '0044-03-15 BC',
              '0044-03-15 12:30:00.25 BC', '0044-03-15 12:00:00+00 BC', '00:00', '-00:00:00.000001', '{}', '{}'),
             (3, 0, 0, 0, NULL, '-1.5e-300', NULL, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL, '5874897-12-31',
              '1970-01-01 00:00:00.000001', '2000-01-01 00:00:00+00', '12:34:56.000001', '0', NULL, NULL);
            """;

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void mixedWorkloadRebuildsEveryTableExactly(int major) throws Exception {
        PgServer pg = server(major);
        String p = "e2e" + major;
        sql(pg, TYPES_DDL.formatted(p));
        Map<String, String> cfg = connectorConfig(pg, p);
        cfg.put("slot.metrics.interval.ms", "500");
        cfg.put("skipped.operations", "none"); // truncates too (Debezium's default skips them)
        connect.configureConnector(p, cfg);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        awaitSlotActive(pg, p + "_slot");

        sql(pg, TYPES_ROWS.formatted(p));
        sql(pg, "UPDATE " + p + "_types SET i4 = i4 - 1, t = 'changed' WHERE id = 2;"
                + "UPDATE " + p + "_types SET id = 30 WHERE id = 3;" // a key change
                + "DELETE FROM " + p + "_types WHERE id = 1;"
                + "INSERT INTO " + p + "_types (id, t) VALUES (4, 'after delete')");
        // TOAST: a big value that stays unchanged while another column changes.
        sql(pg, "INSERT INTO " + p + "_misc SELECT g, 'v' || g, (SELECT string_agg(md5(g::text || x::text), '')"
                + " FROM generate_series(1, 400) x), g FROM generate_series(1, 3) g;"
                + "UPDATE " + p + "_misc SET n = n + 100 WHERE id = 2");
        // A transaction large enough to be streamed before it commits (logical_decoding_work_mem=64kB, 14+).
        sql(pg, "BEGIN; INSERT INTO " + p + "_misc SELECT g, repeat('x', 200), NULL, g FROM generate_series(10, 3009) g;"
                + "UPDATE " + p + "_misc SET v = 'u' WHERE id % 7 = 0; DELETE FROM " + p + "_misc WHERE id % 5 = 0; COMMIT");
        sql(pg, "CREATE TABLE " + p + "_trunc (id int PRIMARY KEY, v text);"
                + "INSERT INTO " + p + "_trunc VALUES (1, 'gone'), (2, 'gone');"
                + "ALTER PUBLICATION " + p + "_pub ADD TABLE " + p + "_trunc");
        sql(pg, "INSERT INTO " + p + "_trunc VALUES (3, 'gone'); TRUNCATE " + p + "_trunc; INSERT INTO " + p
                + "_trunc VALUES (4, 'kept')");
        sql(pg, "INSERT INTO " + p + "_end VALUES (1)");

        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".public." + p + "_\\E.*", Map.of(),
                l -> l.stream().anyMatch(c -> c.topic().endsWith("_end")), Duration.ofSeconds(90));

        assertTrue(all.stream().anyMatch(c -> c.value() == null), "tombstones were sent after deletes");
        assertTrue(all.stream().anyMatch(c -> c.topic().endsWith("_misc") && c.value() != null
                && c.value().getStruct("after") != null
                && PLACEHOLDER.equals(c.value().getStruct("after").getString("big"))),
                "the unchanged TOAST value came as the placeholder");

        assertEquals(expectedTypes(pg, p), rebuilt(all, p + ".public." + p + "_types"));
        assertEquals(expectedMisc(pg, p), rebuilt(all, p + ".public." + p + "_misc"));
        Map<Object, Map<String, Object>> trunc = rebuilt(all, p + ".public." + p + "_trunc");
        if (major >= 11) { // pgoutput sends TRUNCATE from 11 on
            assertTrue(all.stream().anyMatch(c -> "t".equals(c.op())), "a truncate event was sent");
            assertEquals(Map.of(4, Map.of("id", 4, "v", "kept")), trunc);
        } else {
            // 1 and 2 were inserted before the table joined the publication
            assertEquals(List.of(3, 4), List.copyOf(trunc.keySet()));
        }
        // The task publishes its slot's own figures through the worker's metrics (JMX): the retained
        // WAL it reports lies between the server's figure before and after it was read.
        long before = retainedWal(pg, p + "_slot");
        Object reported = awaitTaskMetric(p + "_slot", SlotConnectMetrics.RETAINED_WAL, before);
        long after = retainedWal(pg, p + "_slot");
        assertTrue(reported instanceof Number n && n.longValue() >= Math.min(before, after) - 16 * 1024 * 1024
                && n.longValue() <= Math.max(before, after) + 16 * 1024 * 1024,
                "SlotRetainedWalBytes " + reported + " vs the server's " + before + ".." + after);
        assertEquals(Boolean.TRUE, awaitTaskMetric(p + "_slot", SlotConnectMetrics.ACTIVE, null));
        connect.deleteConnector(p);
    }

    private static long retainedWal(PgServer pg, String slot) throws Exception {
        return Long.parseLong(query(pg, "SELECT pg_current_wal_lsn() - restart_lsn FROM pg_replication_slots WHERE slot_name = '"
                + slot + "'").get(0).get(0).split("\\.")[0]);
    }

    /** A metric of the task tagged with {@code slot}, read from the platform MBean server once it has a value. */
    private static Object awaitTaskMetric(String slot, String attribute, Object ignored) throws Exception {
        javax.management.MBeanServer mbs = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < end) {
            for (javax.management.ObjectName n : mbs.queryNames(new javax.management.ObjectName("kafka.connect:*"), null)) {
                if (!slot.equals(n.getKeyProperty("slot"))) continue;
                for (javax.management.MBeanAttributeInfo a : mbs.getMBeanInfo(n).getAttributes()) {
                    if (a.getName().equals(attribute)) {
                        Object v = mbs.getAttribute(n, attribute);
                        if (v != null) return v;
                    }
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no " + attribute + " metric for slot " + slot + " on the worker's MBean server");
    }

    /** slot.failover on a server older than 17 (the oldest of the matrix): validate() names the setting. */
    @Test
    void failoverOnAnOldServerIsRefusedByValidation() {
        int oldest = ConnectHarness.newestAndOldest().reduce((a, b) -> b).orElseThrow();
        org.junit.jupiter.api.Assumptions.assumeTrue(oldest < 17, "the matrix has no server older than 17");
        Map<String, String> c = connectorConfig(server(oldest), "fo");
        c.put("publication.autocreate.mode", "all_tables");
        c.put("slot.failover", "true");
        var errors = new PgreplSourceConnector().validate(c).configValues().stream()
                .filter(v -> !v.errorMessages().isEmpty())
                .collect(java.util.stream.Collectors.toMap(v -> v.name(), v -> v.errorMessages()));
        assertEquals(java.util.Set.of("slot.failover"), errors.keySet(), errors.toString());
        assertTrue(errors.get("slot.failover").get(0).contains("17"), errors.toString());
        c.put("slot.failover", "false");
        assertTrue(new PgreplSourceConnector().validate(c).configValues().stream()
                .allMatch(v -> v.errorMessages().isEmpty()), "the same settings without failover are valid");
    }

    /**
     * The task is stopped mid-stream (the connector stopped, so the offset it committed last can be
     * read exactly, then resumed) and later its walsender is terminated, while single-row
     * transactions stream: every row arrives, and a row arrives twice only if its transaction lies
     * beyond the offset committed at the stop. The slot is confirmed one offset commit behind, so
     * the resumed task is sent transactions its offset already covers and must skip them.
     */
    @Test
    void taskStopAndWalsenderTerminationLoseNothing() throws Exception {
        PgServer pg = server(18);
        String p = "kill";
        sql(pg, "CREATE TABLE kill_rows (id int PRIMARY KEY)");
        connect.configureConnector(p, connectorConfig(pg, p));
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        awaitSlotActive(pg, p + "_slot");
        int n = 300;
        long committedAtStop = -1;
        long confirmedAtStop = -1;
        for (int i = 1; i <= n; i++) {
            sql(pg, "INSERT INTO kill_rows VALUES (" + i + ")");
            if (i == 100) {
                connect.stopConnector(p);
                ConnectHarness.awaitStopped(connect, p, "connector did not stop");
                committedAtStop = committedLsn(p);
                confirmedAtStop = confirmedLsn(pg, p + "_slot");
                connect.resumeConnector(p);
            }
            if (i == 200) {
                sql(pg, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'kill_slot'");
            }
        }
        long floor = committedAtStop;
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qkill.public.kill_rows\\E", Map.of(),
                l -> l.stream().map(c -> c.value().getStruct("after").get("id")).distinct().count() == n,
                Duration.ofSeconds(90));
        Map<Object, Integer> seen = new HashMap<>();
        for (Change c : all) {
            Object id = c.value().getStruct("after").get("id");
            if (seen.merge(id, 1, Integer::sum) > 1) {
                long lsn = c.value().getStruct("source").getInt64("lsn");
                assertTrue(Long.compareUnsigned(lsn, floor) >= 0,
                        "row " + id + " sent again although the offset committed at the stop covers it");
            }
        }
        assertEquals(n, seen.size());
        assertTrue(floor > 0, "an offset was committed before the stop");
        // The resend happened: the slot stood behind the committed offset, so the resumed task was
        // sent the transactions between the two and skipped them (none of them arrived twice above).
        long confirmed = confirmedAtStop;
        long resent = all.stream().map(c -> c.value().getStruct("source").getInt64("lsn"))
                .filter(l -> Long.compareUnsigned(l, confirmed) > 0 && Long.compareUnsigned(l, floor) < 0).count();
        assertTrue(resent > 0, "transactions between the slot's confirmed position (" + confirmedAtStop
                + ") and the committed offset (" + floor + ") were sent again to the resumed task");
        connect.deleteConnector(p);
    }

    static long confirmedLsn(PgServer pg, String slot) throws Exception {
        return io.pgrepl.codec.Lsn.parse(query(pg, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
                + slot + "'").get(0).get(0));
    }

    /**
     * Only unpublished tables change: the slot's confirmed position still moves past those writes
     * (nothing is in flight, so a heartbeat records the stream's WAL end and the slot is confirmed
     * up to it once that offset was committed), and heartbeat records flow.
     */
    @Test
    void slotAdvancesOnUnpublishedWritesAndHeartbeatsFlow() throws Exception {
        try (PgServer pg = PgServer.start(PgServer.builder().version(18).setting("wal_sender_timeout", "2s").build())) {
            String p = "hb";
            sql(pg, "CREATE TABLE hb_rows (id int PRIMARY KEY); CREATE TABLE unpublished (id int)");
            Map<String, String> cfg = connectorConfig(pg, p);
            cfg.put("heartbeat.interval.ms", "300");
            connect.configureConnector(p, cfg);
            ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
            awaitSlotActive(pg, p + "_slot");
            sql(pg, "INSERT INTO hb_rows VALUES (1)");
            for (int i = 0; i < 5; i++) {
                sql(pg, "INSERT INTO unpublished VALUES (" + i + ")");
            }
            String target = query(pg, "SELECT pg_current_wal_lsn()::text").get(0).get(0);
            long end = System.nanoTime() + Waits.CEILING.toNanos();
            boolean advanced = false;
            while (!advanced && System.nanoTime() < end) {
                advanced = "t".equals(query(pg, "SELECT confirmed_flush_lsn >= '" + target
                        + "'::pg_lsn FROM pg_replication_slots WHERE slot_name = 'hb_slot'").get(0).get(0));
                if (!advanced) Thread.sleep(250);
            }
            assertTrue(advanced, "the slot's confirmed_flush_lsn reached " + target);
            // The slot can advance within a heartbeat interval of the last record, before any heartbeat
            // was due: wait for one sent after the advance, while the connector still runs.
            long advancedAt = System.currentTimeMillis();
            List<Change> hb = ConnectHarness.readUntil(connect, "\\Q__debezium-heartbeat.hb\\E", Map.of(),
                    l -> l.stream().anyMatch(c -> c.value().getInt64("ts_ms") >= advancedAt),
                    Duration.ofSeconds(60), 0);
            // The offsets recorded the idle position before the slot was confirmed there: a restart finds
            // the slot not past them (no false "slot lost" alarm) and streams on.
            connect.stopConnector(p);
            ConnectHarness.awaitStopped(connect, p, "connector did not stop");
            long stored = committedLsn(p);
            long confirmed = confirmedLsn(pg, "hb_slot");
            assertTrue(Long.compareUnsigned(confirmed, stored) <= 0, "the slot (" + confirmed
                    + ") was not confirmed past the committed offset (" + stored + ")");
            connect.resumeConnector(p);
            ConnectHarness.awaitRunning(connect, p, 1, "connector did not resume");
            awaitSlotActive(pg, "hb_slot");
            sql(pg, "INSERT INTO hb_rows VALUES (2)");
            ConnectHarness.readUntil(connect, "\\Qhb.public.hb_rows\\E", Map.of(), l -> l.size() >= 2, Duration.ofSeconds(60), 0);
            assertEquals("RUNNING", connect.connectorStatus(p).tasks().get(0).state());
            connect.deleteConnector(p);
            Change last = hb.get(hb.size() - 1);
            assertEquals("hb", last.key().getString("serverName"));
            assertTrue(last.value().getInt64("ts_ms") >= advancedAt);
        }
    }

    /**
     * Without heartbeats, writes to unpublished tables must not move the slot past the committed
     * offsets (the stream's idle keepalive confirmation would): otherwise a restart cannot tell an
     * idle slot from a re-created one, and slot.lost.handling=fail would stop the task.
     */
    @Test
    void idleSlotWithoutHeartbeatsIsNotConfirmedPastTheOffsets() throws Exception {
        PgServer pg = server(18);
        String p = "idl";
        sql(pg, "CREATE TABLE idl_rows (id int PRIMARY KEY); CREATE TABLE idlx_unpublished (id int)");
        Map<String, String> cfg = connectorConfig(pg, p);
        cfg.put("status.update.interval.ms", "100");
        connect.configureConnector(p, cfg);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        awaitSlotActive(pg, p + "_slot");
        sql(pg, "INSERT INTO idl_rows VALUES (1)");
        ConnectHarness.readUntil(connect, "\\Qidl.public.idl_rows\\E", Map.of(), l -> l.size() == 1, Duration.ofSeconds(60), 0);
        // The row's transaction is committed in the offsets and confirmed: nothing is outstanding, so
        // a keepalive now would be confirmed by a stream that confirms idle keepalives.
        long until = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < until) {
            long c = committedLsn(p);
            if (c != 0 && Long.compareUnsigned(confirmedLsn(pg, "idl_slot"), c) >= 0) break;
            Thread.sleep(100);
        }
        for (int i = 0; i < 5; i++) sql(pg, "INSERT INTO idlx_unpublished VALUES (" + i + ")");
        // The insert position: with synchronous_commit=off the write position may still lag behind.
        String target = query(pg, "SELECT pg_current_wal_insert_lsn()::text").get(0).get(0);
        assertTrue(Long.compareUnsigned(io.pgrepl.codec.Lsn.parse(target), committedLsn(p)) > 0, "the writes lie past the offset");
        // The walsender decoded past the unpublished writes (it then sends a keepalive, being caught
        // up), and the task has sent several status updates since.
        String walsender = "FROM pg_stat_replication r JOIN pg_replication_slots s ON s.active_pid = r.pid"
                + " WHERE s.slot_name = 'idl_slot'";
        String caughtUpAt = null;
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (caughtUpAt == null && System.nanoTime() < end) {
            List<Row> r = query(pg, "SELECT now()::text " + walsender + " AND r.sent_lsn >= '" + target + "'::pg_lsn");
            if (r.isEmpty()) Thread.sleep(50);
            else caughtUpAt = r.get(0).get(0);
        }
        assertTrue(caughtUpAt != null, "the walsender reached " + target);
        boolean replied = false;
        while (!replied && System.nanoTime() < end) {
            replied = !query(pg, "SELECT 1 " + walsender + " AND r.reply_time > '" + caughtUpAt
                    + "'::timestamptz + interval '500 ms'").isEmpty();
            if (!replied) Thread.sleep(50);
        }
        assertTrue(replied, "the task sent status updates after the walsender caught up");
        connect.stopConnector(p);
        ConnectHarness.awaitStopped(connect, p, "connector did not stop");
        long stored = committedLsn(p);
        long confirmed = confirmedLsn(pg, "idl_slot");
        System.out.printf("idle slot: offset %s, slot %s, unpublished writes up to %s%n", io.pgrepl.codec.Lsn.format(stored),
                io.pgrepl.codec.Lsn.format(confirmed), target);
        assertTrue(stored > 0, "an offset was committed");
        assertTrue(Long.compareUnsigned(confirmed, stored) <= 0, "the slot (" + io.pgrepl.codec.Lsn.format(confirmed)
                + ") was not confirmed past the committed offset (" + io.pgrepl.codec.Lsn.format(stored) + ")");
        connect.resumeConnector(p);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not resume");
        sql(pg, "INSERT INTO idl_rows VALUES (2)");
        ConnectHarness.readUntil(connect, "\\Qidl.public.idl_rows\\E", Map.of(), l -> l.size() >= 2, Duration.ofSeconds(60), 0);
        assertEquals("RUNNING", connect.connectorStatus(p).tasks().get(0).state());
        connect.deleteConnector(p);
    }

    /** Columns added and dropped while streaming: each Relation that changes them gives the next schema version. */
    @Test
    void schemaChangeDuringStreamingGivesNewSchemas() throws Exception {
        PgServer pg = server(18);
        String p = "ddl";
        sql(pg, "CREATE TABLE ddl_t (id int PRIMARY KEY, a text)");
        Map<String, String> cfg = connectorConfig(pg, p);
        // pgrepl's converter as a connector-level override, read back by the stock JsonConverter: a schema
        // version's cached prefix must never be written with another version's payload.
        for (String side : new String[] {"key", "value"}) {
            cfg.put(side + ".converter", CachedSchemaJsonConverter.class.getName());
            cfg.put(side + ".converter.schemas.enable", "true");
        }
        connect.configureConnector(p, cfg);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        awaitSlotActive(pg, p + "_slot");
        sql(pg, "INSERT INTO ddl_t VALUES (1, 'one')");
        sql(pg, "ALTER TABLE ddl_t ADD COLUMN b int; INSERT INTO ddl_t VALUES (2, 'two', 2)");
        sql(pg, "ALTER TABLE ddl_t DROP COLUMN a; INSERT INTO ddl_t VALUES (3, 3)");
        sql(pg, "UPDATE ddl_t SET b = 20 WHERE id = 2");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qddl.public.ddl_t\\E", Map.of(),
                l -> l.size() >= 4, Duration.ofSeconds(60));
        assertEquals(4, all.size());
        List<List<String>> fields = new ArrayList<>();
        List<Integer> versions = new ArrayList<>();
        for (Change c : all) {
            Struct after = c.value().getStruct("after");
            fields.add(after.schema().fields().stream().map(Field::name).toList());
            versions.add(after.schema().version());
        }
        assertEquals(List.of(List.of("id", "a"), List.of("id", "a", "b"), List.of("id", "b"), List.of("id", "b")), fields);
        // As Debezium's, the Value schemas carry no version: their fields tell them apart.
        assertEquals(java.util.Arrays.asList(null, null, null, null), versions);
        assertEquals(Map.of(2, Map.of("id", 2, "b", 20), 3, Map.of("id", 3, "b", 3), 1, Map.of("id", 1, "a", "one")),
                rebuilt(all, "ddl.public.ddl_t"));
        connect.deleteConnector(p);
    }

    /** The stored offset's transaction end, read through the worker's REST API. */
    long committedLsn(String connector) {
        var offsets = connect.connectorOffsets(connector).offsets();
        if (offsets.isEmpty()) return 0;
        Object lsn = offsets.get(0).offset().get(Position.TX_END);
        return lsn == null ? 0 : ((Number) lsn).longValue();
    }

    /** Applies c/u/r/d/t in topic order, keeping the previous value where the placeholder stands. */
    static Map<Object, Map<String, Object>> rebuilt(List<Change> all, String topic) {
        Map<Object, Map<String, Object>> table = new TreeMap<>();
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.value() == null) continue;
            switch (c.op()) {
                case "c", "u", "r" -> {
                    Struct after = c.value().getStruct("after");
                    Map<String, Object> row = new TreeMap<>();
                    Object id = after.get("id");
                    Map<String, Object> old = table.get(id);
                    for (Field f : after.schema().fields()) {
                        Object v = normal(after.get(f));
                        if (PLACEHOLDER.equals(v) && old != null) v = old.get(f.name());
                        if (v != null) row.put(f.name(), v);
                    }
                    table.put(id, row);
                }
                case "d" -> table.remove(c.value().getStruct("before").get("id"));
                case "t" -> table.clear();
                default -> throw new AssertionError("unexpected op " + c.op());
            }
        }
        return table;
    }

    /** Comparable forms: decimals as plain strings, bytes as hex, Debezium decimals and timestamps as text/micros. */
    static Object normal(Object v) {
        if (v instanceof ByteBuffer bb) {
            byte[] b = new byte[bb.remaining()];
            bb.duplicate().get(b);
            return HexFormat.of().formatHex(b);
        }
        if (v instanceof byte[] b) return HexFormat.of().formatHex(b);
        if (v instanceof BigDecimal d) return d.toPlainString();
        if (v instanceof Struct s && s.schema().name() != null && s.schema().name().endsWith("VariableScaleDecimal")) {
            return new BigDecimal(new BigInteger(normalBytes(s.get("value"))), s.getInt32("scale")).toPlainString();
        }
        if (v instanceof List<?> l) return l.stream().map(EndToEndTest::normal).toList();
        if (v instanceof Short s) return s.intValue();
        if (v instanceof Byte s) return s.intValue();
        return v;
    }

    private static byte[] normalBytes(Object o) {
        if (o instanceof byte[] b) return b;
        ByteBuffer bb = ((ByteBuffer) o).duplicate();
        byte[] b = new byte[bb.remaining()];
        bb.get(b);
        return b;
    }

    /**
     * The source table as PostgreSQL renders it in each column's Debezium form: epoch days and
     * microseconds computed by the server, decimals and text as the server prints them.
     */
    static Map<Object, Map<String, Object>> expectedTypes(PgServer pg, String p) throws Exception {
        String sql = "SELECT row_to_json(x)::text FROM (SELECT id, i2, i4, i8::text AS i8, b, f8::text AS f8,"
                + " n::text AS n, CASE WHEN nv = 'NaN' THEN NULL ELSE nv::text END AS nv, t, vc, bc, encode(by, 'hex') AS by,"
                + " u::text AS u, j::text AS j, (d - date '1970-01-01') AS d,"
                // whole days and the time of day apart: exact on 10-13 too, where extract() is a float8
                + " ((ts::date - date '1970-01-01')::numeric * 86400000000"
                + "  + round(extract(epoch FROM ts::time) * 1000000)::numeric)::text AS ts,"
                + " (((tz AT TIME ZONE 'UTC')::date - date '1970-01-01')::numeric * 86400000000"
                + "  + round(extract(epoch FROM (tz AT TIME ZONE 'UTC')::time) * 1000000)::numeric)::text AS tz,"
                + " round(extract(epoch FROM tm) * 1000000)::numeric::text AS tm,"
                + " json_build_array(extract(year FROM iv) * 12 + extract(month FROM iv), extract(day FROM iv),"
                + "  round(extract(hour FROM iv) * 3600000000 + extract(minute FROM iv) * 60000000"
                + "  + extract(microseconds FROM iv))) AS iv,"
                + " to_json(ai) AS ai, to_json(at) AS at FROM " + p + "_types ORDER BY id) x";
        Map<Object, Map<String, Object>> out = new TreeMap<>();
        for (Row r : query(pg, sql)) {
            JsonNode n = JSON.readTree(r.get(0));
            Map<String, Object> row = new TreeMap<>();
            for (var it = n.fields(); it.hasNext(); ) {
                var e = it.next();
                Object v = jsonValue(e.getKey(), e.getValue());
                if (v != null) row.put(e.getKey(), v);
            }
            out.put(n.get("id").asInt(), row);
        }
        return out;
    }

    private static Object jsonValue(String column, JsonNode v) {
        if (v.isNull()) return null;
        return switch (column) {
            case "i8", "ts", "tm" -> Long.parseLong(v.asText());
            case "tz" -> zoned(Long.parseLong(v.asText()));
            case "f8" -> Double.parseDouble(v.asText());
            // Debezium's MicroDuration, an int64: a month is 365.25/12 = 30.4375 days (2629800 s)
            case "iv" -> v.get(0).isNull() ? null : v.get(0).asLong() * 2_629_800_000_000L + v.get(1).asLong() * 86_400_000_000L
                    + v.get(2).asLong();
            case "id", "i2", "i4", "d" -> v.asInt();
            case "b" -> v.asBoolean();
            case "ai" -> {
                List<Object> l = new ArrayList<>();
                v.forEach(e -> l.add(e.isNull() ? null : e.asInt()));
                yield l;
            }
            case "at" -> {
                List<Object> l = new ArrayList<>();
                v.forEach(e -> l.add(e.isNull() ? null : e.asText()));
                yield l;
            }
            default -> v.asText();
        };
    }

    /**
     * Debezium's ZonedTimestamp text for epoch microseconds of a plain timestamptz column (six
     * fraction digits, always, as its default precision), rebuilt here with java.time only.
     */
    private static String zoned(long micros) {
        Instant i = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
        return java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSXXX")
                .format(i.atOffset(java.time.ZoneOffset.UTC));
    }

    static Map<Object, Map<String, Object>> expectedMisc(PgServer pg, String p) throws Exception {
        Map<Object, Map<String, Object>> out = new TreeMap<>();
        for (Row r : query(pg, "SELECT id, v, big, n FROM " + p + "_misc ORDER BY id")) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", Integer.parseInt(r.get(0)));
            if (r.get(1) != null) row.put("v", r.get(1));
            if (r.get(2) != null) row.put("big", r.get(2));
            if (r.get(3) != null) row.put("n", Integer.parseInt(r.get(3)));
            out.put(Integer.parseInt(r.get(0)), new TreeMap<>(row));
        }
        assertFalse(out.isEmpty());
        return out;
    }
}
