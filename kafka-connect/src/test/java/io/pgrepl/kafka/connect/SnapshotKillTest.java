package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.TestInstance;

/**
 * The worker running two initial snapshots is SIGKILLed while one copy is in
 * its middle (a table thirty times larger than the other's) and the other has just handed over
 * its last read, with deletes, updates and inserts running all along.
 * Another worker takes both tasks over. Every table rebuilt from its topic, reads and changes in
 * topic order, must equal the source: a row read by the first copy and deleted before the second
 * must be deleted in the topic too (no ghost rows). Reads are counted, not folded by key: the
 * interrupted copy's rows must show up twice (it really was copied again).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotKillTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> GROUP = ChildWorker.group("sk");

    private EmbeddedConnectCluster connect;
    /** The server of the major under test (one per major, closed after it); the Kafka cluster is shared. */
    private PgServer pg;

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("sk", 1, GROUP);
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        if (pg != null) pg.close();
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    private Map<String, String> config(String p, int threads) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.put("snapshot.mode", "initial");
        c.put("snapshot.max.threads", Integer.toString(threads));
        c.put("publication.autocreate.mode", "disabled"); // created here
        c.put("max.batch.size", "200");
        return c;
    }

    /*
     * The newest and the oldest major (the rule for the kill tests): the copy's exported
     * snapshot, the slot kept across the kill and the stream from the first copy's consistent
     * point all depend on the server. One Kafka cluster for both; names carry the major, so the
     * second run's topics and offsets are its own.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void killMidCopyAndRightAfterTheLastReadLeavesNoGhostRows(int major) throws Exception {
        if (pg != null) pg.close();
        pg = PgServer.start(PgServer.builder().version(major).build());
        String a = "ska" + major;
        String b = "skb" + major;
        // The oldest major copies a third as much (still thirty times more for ska than for skb): it
        // adds the server, not another long copy, to the suite's time.
        int bigRows = major == ConnectHarness.newestAndOldest().findFirst().orElseThrow() ? 100_000 : 30_000;
        int smallRows = bigRows * 3 / 100;
        EndToEndTest.sql(pg, ("CREATE TABLE A_big (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO A_big SELECT g, 'v' || g, g FROM generate_series(1, " + bigRows + ") g;"
                + "CREATE TABLE A_end (id int PRIMARY KEY, v text, n int);"
                + "CREATE TABLE B_t (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO B_t SELECT g, 'w' || g, g FROM generate_series(1, " + smallRows + ") g;"
                + "CREATE TABLE B_end (id int PRIMARY KEY, v text, n int);"
                + "CREATE PUBLICATION A_pub FOR TABLE A_big, A_end;"
                + "CREATE PUBLICATION B_pub FOR TABLE B_t, B_end").replace("A_", a + "_").replace("B_", b + "_"));

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger ops = new AtomicInteger();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = new Thread(() -> workload(a, b, bigRows, smallRows, running, ops, failed), "sk-workload");
        Map<String, String> childProps = ChildWorker.workerProps(GROUP, connect.kafka().bootstrapServers());
        ChildWorker child = ChildWorker.start(childProps, Path.of("target", "snapshot-kill-" + major), "sk-child-" + major);
        try {
            // Only the child in the group: both tasks run there.
            connect.removeWorker();
            workload.start();
            put(child, a, config(a, 1));
            put(child, b, config(b, 2));
            awaitRunning(child, a);
            awaitRunning(child, b);
            // skb: its last read handed over; ska: in the middle of its copy (checked below: read twice).
            ConnectHarness.readUntil(connect, "\\Q" + b + ".public." + b + "_t\\E", Map.of(), l -> l.stream().anyMatch(
                    c -> c.value() != null && "last".equals(c.value().getStruct("source").getString("snapshot"))),
                    Duration.ofSeconds(60), 0);
            child.kill();
            int opsAtKill = ops.get();

            connect.addWorker();
            ConnectHarness.awaitRunning(connect, a, 1, a + " moving");
            ConnectHarness.awaitRunning(connect, b, 1, b + " moving");
            // The second copy of ska completes; then more changes stream.
            ConnectHarness.readUntil(connect, "\\Q" + a + ".public." + a + "_big\\E", Map.of(), l -> l.stream().anyMatch(
                    c -> c.value() != null && "last".equals(c.value().getStruct("source").getString("snapshot"))),
                    Duration.ofSeconds(120), 0);
            int opsAfter = ops.get();
            Waits.until(() -> "100 more changes (" + (ops.get() - opsAfter) + ")", Waits.CEILING,
                    () -> ops.get() >= opsAfter + 100 || failed.get() != null);
            assertTrue(ops.get() > opsAtKill, "changes ran between the copies");
        } finally {
            running.set(false);
            workload.join(30_000);
            child.close();
        }
        assertNull(failed.get(), () -> "workload failed: " + failed.get());
        EndToEndTest.sql(pg, "INSERT INTO " + a + "_end VALUES (1, 'end', 1); INSERT INTO " + b + "_end VALUES (1, 'end', 1)");

        for (String p : List.of(a, b)) {
            List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".public." + p + "_\\E.*", Map.of(),
                    l -> l.stream().anyMatch(c -> c.topic().endsWith("_end")), Duration.ofSeconds(90));
            for (String t : p.equals(a) ? List.of(a + "_big") : List.of(b + "_t")) {
                String topic = p + ".public." + t;
                assertEquals(expected(t), EndToEndTest.rebuilt(all, topic), t + " rebuilt from its topic");
                Map<Object, Long> reads = all.stream().filter(c -> c.topic().equals(topic) && "r".equals(c.op()))
                        .collect(Collectors.groupingBy(c -> c.value().getStruct("after").get("id"), Collectors.counting()));
                long twice = reads.values().stream().filter(n -> n > 1).count();
                long max = reads.values().stream().mapToLong(Long::longValue).max().orElse(0);
                System.out.printf("snapshot kill: %s: %d rows read, %d of them twice, %d records%n", t, reads.size(), twice,
                        all.stream().filter(c -> c.topic().equals(topic)).count());
                assertTrue(max <= 2, t + ": a row was read " + max + " times");
                if (t.equals(a + "_big")) assertTrue(twice > 0, "the interrupted copy was taken again (reads counted)");
            }
        }
        connect.deleteConnector(a);
        connect.deleteConnector(b);
    }

    /** Deletes, updates and inserts on both connectors' tables, until told to stop. */
    private void workload(String a, String b, int bigRows, int smallRows, AtomicBoolean running, AtomicInteger ops,
                          AtomicReference<Throwable> failed) {
        try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture()
                .get(Waits.CEILING.toSeconds(), TimeUnit.SECONDS)) {
            for (int i = 1; running.get(); i++) {
                String t = i % 3 == 0 ? b + "_t" : a + "_big";
                int n = i % 3 == 0 ? smallRows : bigRows;
                String sql = switch (i % 4) {
                    case 0 -> "INSERT INTO " + t + " VALUES (" + (100_000 + i) + ", 'i" + i + "', " + i + ")";
                    case 1 -> "UPDATE " + t + " SET v = 'u" + i + "', n = n + 1 WHERE id = " + (i * 7919 % n + 1);
                    default -> "DELETE FROM " + t + " WHERE id = " + (i * 104_729 % n + 1);
                };
                c.query(sql).toCompletableFuture().get(Waits.CEILING.toSeconds(), TimeUnit.SECONDS);
                ops.incrementAndGet();
                Thread.sleep(2);
            }
        } catch (Throwable e) {
            failed.set(e);
        }
    }

    private Map<Object, Map<String, Object>> expected(String table) throws Exception {
        Map<Object, Map<String, Object>> out = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, "SELECT id, v, n FROM " + table)) {
            Map<String, Object> row = new TreeMap<>();
            row.put("id", Integer.parseInt(r.get(0)));
            row.put("v", r.get(1));
            row.put("n", Integer.parseInt(r.get(2)));
            out.put(Integer.parseInt(r.get(0)), row);
        }
        return out;
    }

    static void put(ChildWorker w, String name, Map<String, String> cfg) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + w.port + "/connectors/" + name + "/config"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(cfg))).build();
        // A worker that just joined answers 409 or 500 while the group rebalances (a request it cannot
        // forward to the leader yet): ask again until it takes the config.
        HttpClient http = HttpClient.newHttpClient();
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        Waits.until(() -> "PUT " + name + " taken (" + (last.get() == null ? "no answer" : last.get().statusCode() + " "
                + last.get().body()) + ")", Waits.CEILING, () -> {
            try {
                last.set(http.send(req, HttpResponse.BodyHandlers.ofString()));
            } catch (java.io.IOException slow) {
                return false; // PUT of a config is idempotent: asked again
            }
            return last.get().statusCode() != 409 && last.get().statusCode() < 500;
        });
        HttpResponse<String> r = last.get();
        assertTrue(r.statusCode() / 100 == 2, "PUT " + name + ": " + r.statusCode() + " " + r.body());
    }

    static void awaitRunning(ChildWorker w, String name) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + w.port + "/connectors/" + name + "/status"))
                .timeout(Duration.ofSeconds(30)).build();
        AtomicReference<String> last = new AtomicReference<>("");
        Waits.until(() -> name + " running in the child: " + last.get(), Waits.CEILING, () -> {
            HttpResponse<String> r;
            try {
                r = http.send(req, HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException slow) {
                last.set(slow.toString());
                return false;
            }
            last.set(r.body());
            JsonNode tasks = r.statusCode() == 200 ? JSON.readTree(r.body()).get("tasks") : null;
            return tasks != null && tasks.size() == 1 && "RUNNING".equals(tasks.get(0).get("state").asText());
        });
    }
}
