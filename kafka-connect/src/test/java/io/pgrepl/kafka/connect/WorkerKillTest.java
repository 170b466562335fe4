package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A worker running a task is killed (SIGKILL: it stops nothing, flushes no offsets, leaves no group)
 * while transactions stream. The worker is a separate JVM ({@link ChildWorker}) in the same group as
 * the embedded worker, which takes the task over once the group's session times out. Afterwards:
 * nothing is missing, a record is sent twice only if the offset committed before the kill does not
 * cover it (its transaction and index), and the slot's confirmed_flush_lsn, sampled throughout and
 * right after the kill, never covered a transaction that the committed offsets did not. This is the
 * real form of "task killed mid-stream" (EndToEndTest and ExactlyOnceTest stop or restart
 * the task through Connect, which lets it flush its offsets first).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkerKillTest {
    private static final Map<String, String> GROUP = ChildWorker.group("wk");
    private static final String OFFSETS = GROUP.get("offset.storage.topic");
    private static final int PER_TX = 2;

    private EmbeddedConnectCluster connect;
    private PgServer pg;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
        connect = ConnectHarness.start("wk", 1, GROUP);
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        if (pg != null) pg.close();
    }

    /** One committed offset and the slot's confirmed position, read while the offsets topic did not change. */
    record Sample(long committedEnd, int committedEvent, long confirmed) {}

    @Test
    void killedWorkersTaskMovesAndLosesNothing() throws Exception {
        List<String> names = List.of("wka", "wkb");
        for (String n : names) EndToEndTest.sql(pg, "CREATE TABLE " + n + "_rows (id int PRIMARY KEY, tx int)");
        long t0 = System.nanoTime();
        Map<String, String> childProps = ChildWorker.workerProps(GROUP, connect.kafka().bootstrapServers());
        try (ChildWorker child = ChildWorker.start(childProps, Path.of("target", "worker-kill"), "child-worker")) {
            double childUp = (System.nanoTime() - t0) / 1e9;
            for (String n : names) {
                Map<String, String> cfg = EndToEndTest.connectorConfig(pg, n);
                cfg.put("status.update.interval.ms", "100"); // the slot follows the confirmations closely
                connect.configureConnector(n, cfg);
            }
            // Connect balances tasks over the workers: one of the two tasks runs in the child.
            Map<String, String> placement = awaitPlacement(names, child);
            List<String> victims = names.stream().filter(n -> child.is(placement.get(n))).toList();
            for (String n : names) EndToEndTest.awaitSlotActive(pg, n + "_slot");

            double placed = (System.nanoTime() - t0) / 1e9;
            int txs = 240;
            AtomicInteger done = new AtomicInteger();
            AtomicBoolean sampling = new AtomicBoolean(true);
            Map<String, List<Sample>> samples = new HashMap<>();
            for (String n : victims) samples.put(n, new CopyOnWriteArrayList<>());
            CompletableFuture<Void> sampler = CompletableFuture.runAsync(() -> sample(victims, samples, sampling));
            CompletableFuture<Void> writer = workload(names, txs, done);
            awaitCount(done, txs / 3, writer);

            child.kill();
            long killedAt = System.currentTimeMillis();
            int writtenAtKill = done.get();
            // The state the kill left, before any other worker touches the slot.
            try (OffsetsTopic offsets = new OffsetsTopic(connect, OFFSETS)) {
                for (String n : victims) {
                    Sample s = null;
                    for (int i = 0; i < 50 && s == null; i++) s = sampleOnce(offsets, n);
                    assertNotNull(s, n + ": a sample right after the kill");
                    samples.get(n).add(s);
                }
            }

            // The embedded worker takes the task over, once the group noticed the child is gone.
            long killed = System.nanoTime();
            for (String n : victims) awaitMoved(n, child);
            double moveSeconds = (System.nanoTime() - killed) / 1e9;
            writer.get(Waits.CEILING.toSeconds(), TimeUnit.SECONDS);
            assertTrue(done.get() > writtenAtKill, "transactions streamed after the kill");

            try (OffsetsTopic offsets = new OffsetsTopic(connect, OFFSETS)) {
                for (String n : names) {
                    String topic = n + ".public." + n + "_rows";
                    int rows = txs * PER_TX;
                    List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + topic + "\\E", Map.of(),
                            l -> l.stream().map(c -> c.value().getStruct("after").get("id")).distinct().count() == rows,
                            Duration.ofSeconds(60));
                    // Nothing missing: the table rebuilt from its topic is the source table.
                    assertEquals(source(n + "_rows"), EndToEndTest.rebuilt(all, topic));
                    TreeMap<Long, Integer> txRecords = transactions(all);
                    assertEquals(txs, txRecords.size(), n + ": one commit LSN per transaction");
                    OffsetsTopic.Committed atKill = offsets.lastBefore(n, killedAt);
                    int duplicates = assertDuplicatesBeyond(n, all, atKill, txRecords);
                    if (victims.contains(n)) {
                        assertNotNull(atKill, n + ": an offset was committed before the kill");
                        assertTrue(samples.get(n).size() > 10, n + ": enough samples: " + samples.get(n).size());
                        for (Sample s : samples.get(n)) assertSlotWithinCommitted(n, s, txRecords);
                    }
                    System.out.printf("worker kill: %s ran on %s%s, %d records, %d duplicates, %d slot samples%n", n,
                            placement.get(n), victims.contains(n) ? " (killed; task moved in " + String.format("%.1f s",
                                    moveSeconds) + ")" : "", all.size(), duplicates,
                            victims.contains(n) ? samples.get(n).size() : 0);
                }
                System.out.printf("worker kill: child worker up in %.1f s, tasks placed at %.1f s, kill at %.1f s, done at %.1f s%n",
                        childUp, placed, (killed - t0) / 1e9, (System.nanoTime() - t0) / 1e9);
            } finally {
                sampling.set(false);
                sampler.get(Waits.CEILING.toSeconds(), TimeUnit.SECONDS);
            }
        }
        for (String n : names) connect.deleteConnector(n);
    }

    /**
     * Waits until both tasks run and one is in the child; returns each connector's task's worker.
     * Connect spreads the tasks over the workers once both are in the group and have read the configs:
     * a rebalance or two, each a few round trips between two busy JVMs.
     */
    private Map<String, String> awaitPlacement(List<String> names, ChildWorker child) throws Exception {
        Map<String, String> at = new HashMap<>();
        return Waits.value(() -> "a task running in the child worker (port " + child.port + "): " + at, Waits.CEILING, () -> {
            at.clear();
            for (String n : names) {
                var s = ConnectHarness.connectorStatus(connect, n);
                if (s != null && s.tasks().size() == 1 && "RUNNING".equals(s.tasks().get(0).state())) {
                    at.put(n, s.tasks().get(0).workerId());
                }
            }
            boolean split = at.size() == names.size() && at.values().stream().anyMatch(child::is)
                    && !at.values().stream().allMatch(child::is);
            return split ? Map.copyOf(at) : null;
        });
    }

    private void awaitMoved(String n, ChildWorker child) throws Exception {
        Waits.until(() -> n + "'s task moved off the killed worker: " + ConnectHarness.connectorStatus(connect, n), Waits.CEILING,
                () -> {
                    var s = ConnectHarness.connectorStatus(connect, n);
                    return s != null && s.tasks().size() == 1 && "RUNNING".equals(s.tasks().get(0).state())
                            && !child.is(s.tasks().get(0).workerId());
                });
    }

    private void sample(List<String> victims, Map<String, List<Sample>> samples, AtomicBoolean sampling) {
        try (OffsetsTopic offsets = new OffsetsTopic(connect, OFFSETS)) {
            while (sampling.get()) {
                for (String n : victims) {
                    Sample s = sampleOnce(offsets, n);
                    if (s != null) samples.get(n).add(s);
                }
                Thread.sleep(100);
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** A sample, or null if an offset commit happened between the two reads. */
    private Sample sampleOnce(OffsetsTopic offsets, String n) throws Exception {
        long before = offsets.end();
        OffsetsTopic.Committed c = offsets.last(n);
        List<Row> r = EndToEndTest.query(pg, "SELECT (confirmed_flush_lsn - '0/0')::text FROM pg_replication_slots"
                + " WHERE slot_name = '" + n + "_slot'");
        if (offsets.end() != before || r.isEmpty()) return null;
        return new Sample(c == null ? 0 : c.lsnCommit(), c == null ? -1 : c.event(), Long.parseLong(r.get(0).get(0)));
    }

    /** Each transaction's commit LSN (source.lsn) and its number of distinct records, from what reached Kafka. */
    private static TreeMap<Long, Integer> transactions(List<Change> all) {
        TreeMap<Long, Integer> out = new TreeMap<>(Long::compareUnsigned);
        Map<Object, Boolean> first = new HashMap<>();
        for (Change c : all) {
            if (first.put(c.value().getStruct("after").get("id"), true) != null) continue;
            out.merge(c.value().getStruct("source").getInt64("lsn"), 1, Integer::sum);
        }
        return out;
    }

    /**
     * Every record sent more than once lies beyond {@code atKill}: an offset stores its transaction's end
     * LSN and the record's index in it, so it covers every transaction committing before that end except
     * the last one, and that one up to the index. A row's index in its transaction follows from the
     * workload (ids t*PER_TX+1.. in order).
     */
    private static int assertDuplicatesBeyond(String n, List<Change> all, OffsetsTopic.Committed atKill,
                                              TreeMap<Long, Integer> txRecords) {
        Long coveredTx = atKill == null ? null : txRecords.lowerKey(atKill.lsnCommit());
        Map<Object, Integer> seen = new HashMap<>();
        int duplicates = 0;
        for (Change c : all) {
            int id = c.value().getStruct("after").getInt32("id");
            if (seen.merge(id, 1, Integer::sum) == 1) continue;
            duplicates++;
            long lsn = c.value().getStruct("source").getInt64("lsn");
            int index = (id - 1) % PER_TX;
            boolean covered = coveredTx != null && Long.compareUnsigned(lsn, coveredTx) <= 0
                    && (lsn != coveredTx || index <= atKill.event());
            assertFalse(covered, n + ": row " + id + " (commit " + lsn + ", index " + index + ") sent again although"
                    + " the offset committed before the kill covers it (" + atKill + ")");
        }
        return duplicates;
    }

    /** The slot never confirmed a transaction whose records the committed offset did not all cover. */
    private static void assertSlotWithinCommitted(String n, Sample s, TreeMap<Long, Integer> txRecords) {
        if (Long.compareUnsigned(s.confirmed(), s.committedEnd()) > 0) {
            var uncovered = txRecords.subMap(s.committedEnd(), true, s.confirmed(), false);
            assertTrue(uncovered.isEmpty(), n + ": confirmed_flush_lsn " + s.confirmed() + " passed the committed offset "
                    + s.committedEnd() + ": transactions " + uncovered.keySet() + " were not committed");
        }
        var atEnd = txRecords.lowerEntry(s.committedEnd());
        if (atEnd != null && s.committedEvent() < atEnd.getValue() - 1) {
            assertTrue(Long.compareUnsigned(s.confirmed(), s.committedEnd()) < 0, n + ": the slot was confirmed through"
                    + " a transaction whose records are only partly committed (" + s + ")");
        }
    }

    /** Transactions of PER_TX rows into each table, one table after the other, until {@code txs} each. */
    private CompletableFuture<Void> workload(List<String> names, int txs, AtomicInteger done) {
        return CompletableFuture.runAsync(() -> {
            try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture()
                    .get(Waits.CEILING.toSeconds(), TimeUnit.SECONDS)) {
                for (int t = 0; t < txs; t++) {
                    for (String n : names) {
                        c.query("INSERT INTO " + n + "_rows SELECT g, " + t + " FROM generate_series("
                                + (t * PER_TX + 1) + ", " + (t * PER_TX + PER_TX) + ") g").toCompletableFuture()
                                .get(Waits.CEILING.toSeconds(), TimeUnit.SECONDS);
                    }
                    done.set(t + 1);
                    Thread.sleep(25);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    private static void awaitCount(AtomicInteger n, int atLeast, CompletableFuture<Void> writer) throws Exception {
        Waits.until(() -> "the workload reaching " + atLeast + " transactions (at " + n.get() + ")", Waits.CEILING,
                () -> n.get() >= atLeast || writer.isDone());
        if (n.get() < atLeast) writer.get(); // its failure
        assertTrue(n.get() >= atLeast, "the workload reached " + atLeast);
    }

    private Map<Object, Map<String, Object>> source(String table) throws Exception {
        Map<Object, Map<String, Object>> out = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, "SELECT id, tx FROM " + table)) {
            int id = Integer.parseInt(r.get(0));
            out.put(id, Map.of("id", id, "tx", Integer.parseInt(r.get(1))));
        }
        assertFalse(out.isEmpty());
        return out;
    }
}
