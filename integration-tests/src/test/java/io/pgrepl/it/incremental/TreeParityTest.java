package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.snapshot.SnapshotException;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TablePlanner;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.TypedTable;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The parity rule on partitioned tables and legacy inheritance trees: the initial copy (exported
 * snapshot) and an incremental snapshot of the tree's top table read exactly the rows the stream
 * delivers, each once, under the relation the stream names it by (the root under
 * publish_via_partition_root, else the leaf; each inheritance child under its own name, and only
 * when the publication lists it), decoding to the same values. The tables carry every type of
 * {@link TypedTable} (typmod'd types, NULLs in row 2, a TOASTed value) under names that need
 * quoting. Rows exist before the slot; the same values are inserted again with ids + 100, so
 * they stream.
 */
@PgTest
class TreeParityTest {
    private static final String S = "\"" + TypedTable.SCHEMA + "\".";
    private static final String ROOT = S + "\"Orders Root\"";
    private static final String PARENT = S + "\"Inh Parent\"";

    /** One row as seen on one path: the relation it came with and each column's decoded value. */
    record Seen(RelationInfo relation, List<Object> values) {}

    static final class Paths implements SnapshotHandler, SnapshotReadHandler {
        final Map<String, List<Seen>> copied = new ConcurrentHashMap<>();
        final Map<String, List<Seen>> chunked = new ConcurrentHashMap<>();
        final Map<String, List<Seen>> streamed = new ConcurrentHashMap<>();
        final Map<String, TableProgress> progress = new ConcurrentHashMap<>();
        /** The end of the last commit the stream delivered. */
        volatile long committedTo;

        /** {@code relation/id}, the id less 100 for the streamed twins. */
        private static String key(TupleView t, int offset) {
            return t.relation().name() + "/" + (Integer.parseInt(t.text(0)) - offset);
        }

        private static void add(Map<String, List<Seen>> to, TupleView t, int offset) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < t.columnCount(); i++) values.add(t.isNull(i) ? null : t.decode(i));
            to.computeIfAbsent(key(t, offset), k -> Collections.synchronizedList(new ArrayList<>())).add(new Seen(t.relation(), values));
        }

        @Override
        public void onRead(TupleView row, long consistentPoint) {
            add(copied, row, 0);
        }

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            add(chunked, row, 0);
        }

        @Override
        public void onInsert(InsertMessage m) {
            add(streamed, m.newTuple(), 100);
        }

        @Override
        public void onCommit(CommitMessage m) {
            committedTo = m.endLsn();
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            progress.put(p.table(), p);
        }
    }

    @Test
    void partitionsPublishedThroughTheRootOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, 18, partitioned(18) + " CREATE PUBLICATION tree_pub FOR TABLE " + ROOT + " WITH (publish_via_partition_root = true)",
                List.of("tree_pub"), ROOT, Set.of("Orders Root"), ROOT);
    }

    @Test
    void partitionsPublishedLeafByLeafOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, 18, partitioned(18) + " CREATE PUBLICATION tree_pub FOR TABLE " + ROOT + " WITH (publish_via_partition_root = false)",
                List.of("tree_pub"), ROOT, Set.of("Orders EU", "Orders US"), ROOT);
    }

    /** A leaf also published by a publication without the root option: the stream still names its rows by the root. */
    @Test
    void partitionsThroughTheRootAndALeafAlsoOnItsOwnOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, 18, partitioned(18) + " CREATE PUBLICATION tree_pub FOR TABLE " + ROOT + " WITH (publish_via_partition_root = true);"
                        + " CREATE PUBLICATION tree_pub2 FOR TABLE " + S + "\"Orders EU\"",
                List.of("tree_pub", "tree_pub2"), ROOT, Set.of("Orders Root"), ROOT);
    }

    /** Before 13 a publication lists partitions only, each by name; the root asked for reads them under their names. */
    @Test
    void partitionsListedByNameOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, 10, partitioned(10) + " CREATE PUBLICATION tree_pub FOR TABLE " + S + "\"Orders EU\", " + S + "\"Orders US\"",
                List.of("tree_pub"), ROOT, Set.of("Orders EU", "Orders US"), ROOT);
    }

    /** A leaf whose rows the stream names by its root cannot be snapshotted by itself: the planner names the root. */
    @Test
    void aLeafNamedByItsRootIsRefusedOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", partitioned(18) + " CREATE PUBLICATION tree_pub FOR TABLE " + ROOT + " WITH (publish_via_partition_root = true);"
                + " CREATE PUBLICATION tree_pub2 FOR TABLE " + S + "\"Orders EU\"");
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            // Listed by the second publication alone, it is the leaf's own.
            assertEquals("Orders EU", await(TablePlanner.plan(sql, List.of("tree_pub2"), S + "\"Orders EU\"", null)).table());
            SnapshotException e = org.junit.jupiter.api.Assertions.assertThrows(SnapshotException.class,
                    () -> await(TablePlanner.plan(sql, List.of("tree_pub", "tree_pub2"), S + "\"Orders EU\"", null)));
            assertEquals("table Sales.Q1.Orders EU is a partition whose rows the stream names by Sales.Q1.Orders Root (a publication"
                    + " lists it with publish_via_partition_root = true): snapshot Sales.Q1.Orders Root", e.getMessage());
        }
    }

    @Test
    void inheritanceTreeOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, 18, inheritance(18) + " CREATE PUBLICATION tree_pub FOR TABLE " + PARENT,
                List.of("tree_pub"), PARENT, Set.of("Inh Parent", "Inh Kid A", "Inh Kid B"), twinsOfInheritance(18));
    }

    @Test
    void inheritanceParentOnlyAndAChildOnItsOwnOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, 18, inheritance(18) + " CREATE PUBLICATION tree_pub FOR TABLE ONLY " + PARENT + ";"
                        + " CREATE PUBLICATION tree_pub2 FOR TABLE " + S + "\"Inh Kid B\"",
                List.of("tree_pub", "tree_pub2"), PARENT, Set.of("Inh Parent", "Inh Kid B"), twinsOfInheritance(18));
    }

    @Test
    void inheritanceTreeOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, 10, inheritance(10) + " CREATE PUBLICATION tree_pub FOR TABLE " + PARENT,
                List.of("tree_pub"), PARENT, Set.of("Inh Parent", "Inh Kid A", "Inh Kid B"), twinsOfInheritance(10));
    }

    @Test
    void inheritanceParentOnlyOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, 10, inheritance(10) + " CREATE PUBLICATION tree_pub FOR TABLE ONLY " + PARENT,
                List.of("tree_pub"), PARENT, Set.of("Inh Parent"), twinsOfInheritance(10));
    }

    /**
     * A child's changes are the child's: while the parent is read chunk by chunk, a writer
     * updates, again and again, every row of a child that holds one key of every ten of the
     * parent's; no parent row may be taken for one the stream changed (the stream names those
     * changes by the child), so every parent row is read. The child waits its turn (one table at a
     * time), so the parent's run is the only one tracking the stream meanwhile.
     */
    @Test
    void childChangesLeaveTheParentsRowsOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        String kid = S + "\"Inh Kid\"";
        s.sql("postgres", "DROP PUBLICATION IF EXISTS tree_pub, tree_pub2; " + TypedTable.setup(18)
                + " CREATE TABLE " + PARENT + " (\"Id\" int PRIMARY KEY, \"Amount\" numeric(10,2), \"Code\" varchar(8));"
                + " CREATE TABLE " + kid + " () INHERITS (" + PARENT + "); ALTER TABLE " + kid + " ADD PRIMARY KEY (\"Id\");"
                + " INSERT INTO " + PARENT + " SELECT g, g / 100.0, 'p' || g FROM generate_series(1, 300) g;"
                // One key of every ten: each chunk of the parent (ten rows) holds one key the writer changes in the child.
                + " INSERT INTO " + kid + " SELECT g, g / 100.0, 'k' || g FROM generate_series(10, 300, 10) g;"
                + " CREATE PUBLICATION tree_pub FOR TABLE " + PARENT);
        Paths p = new Paths();
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection writer = connect(s, ReplicationMode.NONE)) {
            LogicalReplicationOptions stream = LogicalReplicationOptions.builder("tree_slot").publications("tree_pub")
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            SnapshotOptions options = SnapshotOptions.of(stream).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
            IncrementalSnapshots inc = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withWatermarks(WatermarkMode.READ_ONLY).withChunkSize(10).withParallelTables(1), p);
            InitialSnapshot.Started st = await(InitialSnapshot.start(repl, InitialSnapshotMode.INITIAL, options, p, inc));
            Thread w = new Thread(() -> {
                while (writing.get()) {
                    try {
                        await(writer.query("UPDATE " + kid + " SET \"Amount\" = \"Amount\" + 1"));
                        writes.incrementAndGet();
                        Thread.sleep(10);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            w.start();
            try {
                // Each row read waits 3 ms: a chunk's read spans some of the writer's commits.
                inc.execute(Map.of(PARENT, "(SELECT true FROM pg_catalog.pg_sleep(0.003))"));
                try {
                    waitUntil("the incremental snapshot of " + PARENT, Duration.ofSeconds(60), () -> {
                        TableProgress t = p.progress.get(PARENT);
                        if (t != null && t.status() == TableProgress.Status.FAILED) throw new AssertionError(t.error());
                        return t != null && t.status() == TableProgress.Status.COMPLETED;
                    });
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "; progress " + p.progress + ", " + writes + " updates", e);
                }
                writing.set(false);
                w.join(10_000);
                waitUntil("the child's snapshot", Duration.ofSeconds(60), () -> finished(p, inc));
            } finally {
                writing.set(false);
                w.join(10_000);
                await(st.stream().stop());
                inc.close();
            }
        }
        assertTrue(writes.get() > 10, "the child was written while the parent was read: " + writes.get() + " updates");
        Set<String> missing = new TreeSet<>();
        for (int id = 1; id <= 300; id++) if (!p.chunked.containsKey("Inh Parent/" + id)) missing.add("Inh Parent/" + id);
        assertEquals(Set.of(), missing, "parent rows the chunks did not read");
        assertEquals(300, p.chunked.keySet().stream().filter(k -> k.startsWith("Inh Parent/")).count(), "parent rows read");
        assertEquals(TableProgress.Status.COMPLETED, p.progress.get(S + "\"Inh Kid\"").status(), "the child, read as a table of its own");
    }

    private static String defs(int major) {
        return TypedTable.columns(major).stream().map(c -> c.quoted() + " " + c.type()).collect(Collectors.joining(", "));
    }

    private static String names(int major) {
        return TypedTable.columns(major).stream().map(TypedTable.Col::quoted).collect(Collectors.joining(", "));
    }

    /** The typed values of rows 1 (row1), 2 (NULLs) and 3 (row3), after {@code lead} columns. */
    private static String rows(int major, String lead1, String lead2, String lead3) {
        List<TypedTable.Col> cols = TypedTable.columns(major);
        return "(" + lead1 + ", " + cols.stream().map(TypedTable.Col::row1).collect(Collectors.joining(", ")) + "), ("
                + lead2 + ", " + cols.stream().map(c -> "NULL").collect(Collectors.joining(", ")) + "), ("
                + lead3 + ", " + cols.stream().map(TypedTable.Col::row3).collect(Collectors.joining(", ")) + ")";
    }

    /**
     * A root listed by "Region" with two leaves, rows 1 and 3 in one, row 2 in the other; keyed on
     * the root from 11 on, on each leaf before (10 has no keys on partitioned tables).
     */
    private static String partitioned(int major) {
        String leafKey = major >= 11 ? "" : " ALTER TABLE " + S + "\"Orders EU\" ADD PRIMARY KEY (\"Region\", \"Id\");"
                + " ALTER TABLE " + S + "\"Orders US\" ADD PRIMARY KEY (\"Region\", \"Id\");";
        return "DROP PUBLICATION IF EXISTS tree_pub, tree_pub2; " + TypedTable.setup(major)
                + " CREATE TABLE " + ROOT + " (\"Id\" int, \"Region\" int, " + defs(major)
                + (major >= 11 ? ", PRIMARY KEY (\"Region\", \"Id\")" : "") + ") PARTITION BY LIST (\"Region\");"
                + " CREATE TABLE " + S + "\"Orders EU\" PARTITION OF " + ROOT + " FOR VALUES IN (1);"
                + " CREATE TABLE " + S + "\"Orders US\" PARTITION OF " + ROOT + " FOR VALUES IN (2);" + leafKey
                + " INSERT INTO " + ROOT + " VALUES " + rows(major, "1, 1", "2, 2", "3, 1") + ";";
    }

    /** A parent and two children (one with an extra column), each with its own primary key and rows. */
    private static String inheritance(int major) {
        return "DROP PUBLICATION IF EXISTS tree_pub, tree_pub2; " + TypedTable.setup(major)
                + " CREATE TABLE " + PARENT + " (\"Id\" int PRIMARY KEY, " + defs(major) + ");"
                + " CREATE TABLE " + S + "\"Inh Kid A\" () INHERITS (" + PARENT + ");"
                + " ALTER TABLE " + S + "\"Inh Kid A\" ADD PRIMARY KEY (\"Id\");"
                + " CREATE TABLE " + S + "\"Inh Kid B\" (\"Extra\" varchar(5)) INHERITS (" + PARENT + ");"
                + " ALTER TABLE " + S + "\"Inh Kid B\" ADD PRIMARY KEY (\"Id\");"
                + " INSERT INTO " + PARENT + " VALUES " + rows(major, "1", "2", "3") + ";"
                + " INSERT INTO " + S + "\"Inh Kid A\" VALUES " + rows(major, "11", "12", "13") + ";"
                + " INSERT INTO " + S + "\"Inh Kid B\" (\"Id\", " + names(major) + ", \"Extra\") SELECT \"Id\" + 10, " + names(major)
                + ", CASE \"Id\" WHEN 11 THEN 'x' WHEN 13 THEN 'zz' END FROM " + S + "\"Inh Kid A\";";
    }

    private static String twinsOfInheritance(int major) {
        String n = names(major);
        return "INSERT INTO " + PARENT + " SELECT \"Id\" + 100, " + n + " FROM ONLY " + PARENT + ";"
                + " INSERT INTO " + S + "\"Inh Kid A\" SELECT \"Id\" + 100, " + n + " FROM " + S + "\"Inh Kid A\";"
                + " INSERT INTO " + S + "\"Inh Kid B\" SELECT \"Id\" + 100, " + n + ", \"Extra\" FROM " + S + "\"Inh Kid B\"";
    }

    /**
     * Sets up, copies and incrementally snapshots {@code execute}, inserts the twins ({@code twins}:
     * SQL, or a root to insert into from itself), and compares the three paths.
     */
    private static void run(PgServer s, int major, String setup, List<String> publications, String execute,
                            Set<String> expectedRelations, String twins) throws Exception {
        s.sql("postgres", setup);
        String twinSql = twins.startsWith("INSERT") ? twins
                : "INSERT INTO " + twins + " SELECT \"Id\" + 100, \"Region\", " + names(major) + " FROM " + twins;
        Paths p = new Paths();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            LogicalReplicationOptions stream = LogicalReplicationOptions.builder("tree_slot").publications(publications)
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            SnapshotOptions options = SnapshotOptions.of(stream).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
            IncrementalSnapshots inc = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withWatermarks(WatermarkMode.READ_ONLY), p);
            InitialSnapshot.Started st = await(InitialSnapshot.start(repl, InitialSnapshotMode.INITIAL, options, p, inc));
            inc.execute(execute);
            try {
                waitUntil("the incremental snapshot of " + execute, Duration.ofSeconds(60), () -> finished(p, inc));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; progress: " + p.progress, e);
            }
            for (TableProgress t : p.progress.values()) {
                assertTrue(t.status() == TableProgress.Status.COMPLETED, "every table the snapshot took completed: " + p.progress);
            }
            await(sql.query(twinSql));
            long end = Lsn.parse(await(sql.query("SELECT pg_current_wal_lsn()::text")).rows().get(0).get(0));
            waitUntil("the streamed twins", Duration.ofSeconds(60), () -> Long.compareUnsigned(p.committedTo, end) >= 0);
            await(st.stream().stop());
            inc.close();
        }
        Set<String> streamedRelations = p.streamed.keySet().stream().map(k -> k.substring(0, k.indexOf('/'))).collect(Collectors.toSet());
        assertEquals(expectedRelations, streamedRelations, "the relations the stream names the rows by");
        assertEquals(new TreeSet<>(p.streamed.keySet()), new TreeSet<>(p.copied.keySet()), "(relation, id) copied and streamed");
        assertEquals(new TreeSet<>(p.streamed.keySet()), new TreeSet<>(p.chunked.keySet()), "(relation, id) read by chunks and streamed");
        for (String key : new TreeMap<>(p.streamed).keySet()) {
            Seen streamed = p.streamed.get(key).get(0);
            assertEquals(1, p.streamed.get(key).size(), key + " streamed once");
            for (Map.Entry<String, Map<String, List<Seen>>> path : Map.of("copy", p.copied, "chunk", p.chunked).entrySet()) {
                List<Seen> reads = path.getValue().get(key);
                String what = path.getKey() + " read of " + key;
                assertEquals(1, reads.size(), what + ": read once");
                Seen read = reads.get(0);
                assertEquals(streamed.relation().schema(), read.relation().schema(), what);
                assertEquals(streamed.relation().name(), read.relation().name(), what);
                assertEquals(streamed.relation().replicaIdentity(), read.relation().replicaIdentity(), what + ": replica identity");
                assertEquals(streamed.relation().columns(), read.relation().columns(), what + ": columns (names, types, typmods, key flags)");
                for (int c = 1; c < streamed.values().size(); c++) {
                    assertEquals(comparable(streamed.values().get(c)), comparable(read.values().get(c)),
                            what + ": column " + streamed.relation().columns().get(c).name());
                }
            }
        }
    }

    /** Every table the snapshot took is done, and the engine holds none. */
    private static boolean finished(Paths p, IncrementalSnapshots inc) {
        if (p.progress.isEmpty()) return false;
        for (TableProgress t : p.progress.values()) {
            if (t.status() == TableProgress.Status.FAILED) throw new AssertionError(t.table() + " failed: " + t.error());
            if (t.status() != TableProgress.Status.COMPLETED) return false;
        }
        try {
            return await(inc.progress()).isEmpty();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** A decoded value with its byte arrays as hex (in lists too), so that equal values compare equal. */
    private static Object comparable(Object v) {
        if (v instanceof byte[] b) return "bytes:" + java.util.HexFormat.of().formatHex(b);
        if (v instanceof List<?> l) return l.stream().map(TreeParityTest::comparable).toList();
        return v;
    }
}
