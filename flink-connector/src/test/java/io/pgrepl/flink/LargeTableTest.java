package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The source at scale: parallelism 4 over a table of a million rows of real shapes (a quoted name
 * and key column, numeric(12,3), timestamp(3), varchar(40), text[], NULLs, TOASTed values) while
 * one writer inserts, updates, moves primary keys and deletes, from before the job starts until the
 * stream has caught up with writes made while it streamed. The changelog, applied in order by key,
 * must hold exactly the table's final rows (every column's text, compared by digest per key), and
 * every retraction must retract the row the changelog had built.
 *
 * <p>PostgreSQL 18 only, whatever {@code -Dpg.versions} says: this test is about volume and the
 * merge under concurrent writes, not about server versions (SnapshotAndStreamTest runs the same
 * merge on the oldest server too), and its half minute is not worth repeating per version.
 */
class LargeTableTest {
    private static final int ROWS = 1_000_000;
    private static final long TOAST_EVERY = 1_000;
    private static final String TABLE = "public.\"Large Orders.Ü\"";
    private static final String KEY = "\"Item ID\"";
    private static final List<String> COLUMNS = List.of("Item ID", "amount", "placed", "label", "tags", "n", "memo");
    private static final String SELECT = KEY + ", amount, placed, label, tags, n, memo";

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static PgServer pg;

    @BeforeAll
    static void start() {
        // The kit's 16 MB of shared buffers would make the load and the reads go through the OS cache page by page.
        pg = PgServer.start(PgServer.builder().version(18).setting("shared_buffers", "256MB").build());
    }

    @AfterAll
    static void stop() {
        if (pg != null) pg.close();
    }

    /** The table, filled server-side; the key is added after the rows (one sorted index build), {@code n} = key. */
    private static void populate() throws Exception {
        Fixture.sql(pg, "CREATE SEQUENCE large_n;"
                + "CREATE TABLE " + TABLE + " (" + KEY + " bigint NOT NULL, amount numeric(12,3), placed timestamp(3),"
                + " label varchar(40), tags text[], n bigint NOT NULL DEFAULT nextval('large_n'), memo text);"
                + "INSERT INTO " + TABLE + " SELECT g, CASE WHEN g % 11 = 0 THEN NULL ELSE (g * 1.125)::numeric(12,3) END,"
                + " timestamp '2024-01-01 00:00:00' + g * interval '1.2345 second',"
                + " CASE WHEN g % 7 = 0 THEN NULL ELSE 'nöte \"' || g || '\"' END,"
                + " CASE WHEN g % 5 = 0 THEN NULL ELSE ARRAY['a' || g, NULL, 'x,y \"q\"'] END, g,"
                + " CASE WHEN g % " + TOAST_EVERY + " = 0 THEN (SELECT string_agg(md5(g::text || '-' || i), '') FROM generate_series(1, 300) i)"
                + " ELSE 'm' || g END FROM generate_series(1, " + ROWS + ") g;"
                + "SELECT setval('large_n', " + ROWS + ");"
                + "ALTER TABLE " + TABLE + " ADD PRIMARY KEY (" + KEY + "), REPLICA IDENTITY FULL;"
                + "ANALYZE " + TABLE);
    }

    /** The TOASTed values are stored out of line: the table's TOAST relation has pages. */
    private static long toastBytes() throws Exception {
        return Long.parseLong(Fixture.query(pg, "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = "
                + Identifiers.quoteLiteral(TABLE) + "::regclass").get(0).get(0));
    }

    private static long sequence() throws Exception {
        return Long.parseLong(Fixture.query(pg, "SELECT last_value FROM large_n").get(0).get(0));
    }

    /** What the consumer saw of the job's timeline. */
    private static final class Timeline {
        long start = System.nanoTime();
        long firstRead;
        long lastRead;
        long firstChange;
        long writerStopped;
        long marker;
        /** The sequence when the first snapshot row arrived, and when the first stream change did. */
        long nAtFirstRead = -1;
        long nAtFirstChange = -1;
        long maxReadN;
        /** Snapshot rows holding a write made after the first snapshot row arrived. */
        long readsOfLaterWrites;
        /** Stream changes of writes older than a write some snapshot piece held. */
        long changesOlderThanARead;
        long writerTransactionsAtJobStart;
        long writerTransactionsAtFirstChange;

        double s(long at) {
            return at == 0 ? Double.NaN : (at - start) / 1e9;
        }
    }

    @Test
    void aMillionRowsUnderConcurrentWritesRebuildTheTable() throws Exception {
        long begun = System.nanoTime();
        populate();
        long loaded = System.nanoTime();
        assertTrue(toastBytes() > 0, "the TOASTed values are out of line");
        PgreplSource<RowDigest> source = PgreplSource.builder()
                .url(pg.url(pg.superuser(), "postgres"))
                .slotName("large_table")
                .tables(TABLE)
                .chunkSize(20_000)
                .fetchSize(5_000) // several pieces (transactions) per split
                .requireFullReplicaIdentity(true)
                .build(new RowDigest.Deserializer(COLUMNS, "Item ID"));
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // the callback sink must not see a replay
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(4);
        env.enableCheckpointing(300);

        Timeline t = new Timeline();
        DigestTable m = new DigestTable(ROWS + ROWS / 10);
        AtomicLongArray front = new AtomicLongArray(8);
        MixedWriter writer = new MixedWriter(pg, TABLE, KEY, ROWS, TOAST_EVERY, front, 0);
        CountDownLatch ended = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        boolean[] marked = {false};
        CallbackSink.<RowDigest>register("large-table", c -> {
            if (ended.getCount() == 0) return;
            try {
                if (observe(c, m, t, writer, front, marked)) ended.countDown();
            } catch (Throwable e) {
                failed.set(e);
                ended.countDown();
            }
        });
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl").sinkTo(new CallbackSink<RowDigest>("large-table")).setParallelism(1);
        JobClient job = null;
        try {
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (writer.transactions.get() < 50 && writer.failure() == null && System.nanoTime() < deadline) Thread.sleep(10);
            t.writerTransactionsAtJobStart = writer.transactions.get();
            t.start = System.nanoTime();
            job = env.executeAsync("large table");
            CompletableFuture<?> result = job.getJobExecutionResult();
            deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (!ended.await(200, TimeUnit.MILLISECONDS)) {
                if (result.isDone()) result.get(); // throws what failed the job
                assertTrue(System.nanoTime() < deadline, () -> "no end marker within 5 minutes: " + m.reads + " reads, "
                        + (m.inserts + m.updates + m.deletes) + " changes, writer at " + writer.transactions.get() + " transactions");
            }
        } finally {
            if (job != null && !job.getJobExecutionResult().isDone()) job.cancel().get(1, TimeUnit.MINUTES);
            writer.close();
            CallbackSink.unregister("large-table");
        }
        assertNull(failed.get(), () -> "applying the changelog failed: " + failed.get());
        assertNull(writer.failure(), () -> "the writer failed: " + writer.failure());

        List<String> diffs = new ArrayList<>();
        long tableRows = compare(m, diffs);
        long compared = System.nanoTime();
        System.out.printf("large table: %d rows loaded in %.1f s; job: first read %.1f s, last read %.1f s, first change %.1f s,"
                        + " writer stopped %.1f s, end marker %.1f s; compared in %.1f s%n",
                ROWS, (loaded - begun) / 1e9, t.s(t.firstRead), t.s(t.lastRead),
                t.s(t.firstChange), t.s(t.writerStopped), t.s(t.marker), (compared - t.marker) / 1e9);
        System.out.printf("large table: %d reads, %d inserts, %d updates (%d key changes), %d deletes; writer: %d transactions"
                        + " (%d before the job, %d before the first change), %d inserts, %d updates, %d key moves, %d deletes;"
                        + " %d reads of writes made during the snapshot, %d changes older than a read; %d rows at the end%n",
                m.reads, m.inserts, m.updates, m.keyChanges, m.deletes, writer.transactions.get(), t.writerTransactionsAtJobStart,
                t.writerTransactionsAtFirstChange, writer.inserts.get(), writer.updates.get(), writer.keyMoves.get(),
                writer.deletes.get(), t.readsOfLaterWrites, t.changesOlderThanARead, tableRows);

        assertTrue(m.anomalies.isEmpty(), () -> "changes that do not fit the rows before them: " + m.anomalies);
        assertTrue(diffs.isEmpty(), () -> tableRows + " rows in the table, " + m.size() + " materialized; differences: " + diffs);
        assertEquals(tableRows, m.size());
        // The writes overlapped the snapshot: pieces read rows written after the first row arrived, and
        // writes committed while the table was being read reached the changelog through the stream.
        assertTrue(t.readsOfLaterWrites > 0, "no snapshot row holds a write made while the snapshot was read");
        assertTrue(t.changesOlderThanARead > 0, "no stream change is older than a write a snapshot piece held");
        assertTrue(t.writerTransactionsAtJobStart >= 50, "the writer was writing when the job started");
        assertTrue(m.inserts > 0 && m.deletes > 0 && m.updates > m.keyChanges, "inserts, updates and deletes streamed");
        assertTrue(m.keyChanges > 0, "updates that moved a key streamed");
    }

    /** Applies one element and follows the timeline; true once the end marker (key 0) arrived. */
    private static boolean observe(RowDigest c, DigestTable m, Timeline t, MixedWriter writer, AtomicLongArray front, boolean[] marked)
            throws Exception {
        long now = System.nanoTime();
        m.apply(c);
        if (c.op.equals("READ")) {
            if (t.firstRead == 0) {
                t.firstRead = now;
                t.nAtFirstRead = sequence();
            }
            t.lastRead = now;
            t.maxReadN = Math.max(t.maxReadN, c.n);
            if (c.n > t.nAtFirstRead) t.readsOfLaterWrites++;
            if (m.reads % 256 == 0 && c.newKey > 0 && c.newKey < MixedWriter.MOVED) front.set((int) (m.reads / 256 % front.length()), c.newKey);
            return false;
        }
        if (t.firstChange == 0) {
            t.firstChange = now;
            t.nAtFirstChange = sequence();
            t.writerTransactionsAtFirstChange = writer.transactions.get();
        }
        if (c.hasNew && c.newKey == 0) {
            t.marker = now;
            return true;
        }
        if (c.hasNew && c.n < t.maxReadN) t.changesOlderThanARead++;
        if (!marked[0] && c.hasNew && c.n > t.nAtFirstChange + 200) {
            // The stream has caught up with writes made while it streamed: stop writing, then mark the end.
            writer.close();
            t.writerStopped = System.nanoTime();
            Fixture.sql(pg, "INSERT INTO " + TABLE + " (" + KEY + ", amount, label, memo) VALUES (0, 0, 'end', 'end')");
            marked[0] = true;
        }
        return false;
    }

    /**
     * Reads the table back in key order, 100,000 rows a query, and compares each row's digest with
     * the changelog's; then looks for keys only the changelog has.
     *
     * @return the table's row count
     */
    private static long compare(DigestTable m, List<String> diffs) throws Exception {
        long[] keys = new long[ROWS + ROWS / 4];
        int n = 0;
        try (PgConnection c = Fixture.connect(pg)) {
            Long after = null;
            while (true) {
                List<Row> rows = c.query("SELECT " + SELECT + " FROM " + TABLE + (after == null ? "" : " WHERE " + KEY + " > " + after)
                        + " ORDER BY " + KEY + " LIMIT 100000").toCompletableFuture().get(2, TimeUnit.MINUTES).rows();
                if (rows.isEmpty()) break;
                List<String> values = new ArrayList<>(COLUMNS.size());
                for (Row row : rows) {
                    values.clear();
                    for (int i = 0; i < COLUMNS.size(); i++) values.add(row.get(i));
                    long key = Long.parseLong(row.get(0));
                    String text = RowDigest.text(COLUMNS, values);
                    if (n == keys.length) keys = Arrays.copyOf(keys, n * 2);
                    keys[n++] = key;
                    if (!m.contains(key)) diff(diffs, "key " + key + " only in the table: " + RowDigest.shown(text));
                    else if (m.digest(key) != RowDigest.digest(text)) {
                        String last = m.streamTexts.get(key);
                        diff(diffs, "key " + key + ": table " + RowDigest.shown(text) + ", changelog " + (last == null ? "(a snapshot row)" : RowDigest.shown(last)));
                    }
                }
                after = Long.parseLong(rows.get(rows.size() - 1).get(0));
            }
        }
        long[] sorted = Arrays.copyOf(keys, n);
        m.forEachKey(k -> {
            if (Arrays.binarySearch(sorted, k) < 0) {
                String last = m.streamTexts.get(k);
                diff(diffs, "key " + k + " only in the changelog: " + (last == null ? "(a snapshot row)" : RowDigest.shown(last)));
            }
        });
        return n;
    }

    private static void diff(List<String> diffs, String d) {
        if (diffs.size() < 10) diffs.add(d);
    }
}
