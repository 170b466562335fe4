package io.pgrepl.benchmarks;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.PgOutputHandler;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import io.pgrepl.codec.replication.XLogData;
import io.pgrepl.testkit.PgServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * End-to-end logical decoding throughput against a real embedded PostgreSQL: N rows inserted in
 * large transactions, then streamed from slots that all start at the same LSN (copies of one
 * slot), one variant after the other in the same JVM, so that ratios are measured side by side.
 * The server's own decoding cost ({@code pg_logical_slot_get_binary_changes} on a slot of its own) is
 * the baseline: the walsender is single-threaded per slot, and the client must not be slower.
 *
 * <p>Per variant: wall time from START_REPLICATION to the last commit, rows/s, MB/s of XLogData
 * payload, CPU time and bytes allocated by the connection's event-loop thread (and by every thread,
 * for the reactive face whose subscriber runs elsewhere).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.EndToEndThroughput [--rows N] [--version 18] [--batch 100000]</pre>
 */
public final class EndToEndThroughput {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private enum Face { VIEWS, RECORDS, REACTIVE }

    private record Variant(String name, Face face, boolean binary) {}

    private record Result(Variant v, long rows, long bytes, long messages, long nanos, long loopCpuNanos,
                          long loopAllocated, long allAllocated) {}

    public static void main(String[] args) throws Exception {
        int rows = 1_000_000;
        int version = 18;
        int batch = 100_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--version" -> version = Integer.parseInt(args[++i]);
                case "--batch" -> batch = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("usage: [--rows N] [--version 18] [--batch 100000]");
            }
        }
        if (version < 14) throw new IllegalArgumentException("binary mode and the variants need PostgreSQL 14+");
        List<Variant> variants = List.of(
                new Variant("views/text", Face.VIEWS, false),
                new Variant("records/text", Face.RECORDS, false),
                new Variant("reactive/text", Face.REACTIVE, false),
                new Variant("views/binary", Face.VIEWS, true),
                new Variant("records/binary", Face.RECORDS, true));
        try (PgServer s = PgServer.builder().version(version)
                .setting("max_replication_slots", "20").setting("max_wal_senders", "20")
                .setting("max_wal_size", "4GB").setting("checkpoint_timeout", "1h").start()) {
            System.out.printf("PostgreSQL %s, %d rows in transactions of %d, JDK %s, %d CPUs%n", s.version(), rows, batch,
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            s.sql("postgres", "CREATE TABLE bench (id int8 PRIMARY KEY, t text, n numeric, ts timestamptz, j jsonb);"
                    + " CREATE PUBLICATION bench_pub FOR TABLE bench");
            try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
                await(repl.createReplicationSlot(CreateSlotOptions.logical("src", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
                // Created before the inserts, like the copies: they see the same data.
                for (String p : List.of("peek_text", "peek_binary")) {
                    await(repl.createReplicationSlot(CreateSlotOptions.logical(p, "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
                }
            }
            Variant warmup = new Variant("warmup", Face.VIEWS, false);
            List<String> copies = new ArrayList<>(List.of(slot(warmup)));
            for (Variant v : variants) copies.add(slot(v));
            StringBuilder sql = new StringBuilder();
            for (String c : copies) sql.append("SELECT pg_copy_logical_replication_slot('src', '").append(c).append("');");
            s.sql("postgres", sql.toString());
            long t0 = System.nanoTime();
            for (int from = 1; from <= rows; from += batch) {
                int to = Math.min(rows, from + batch - 1);
                s.sql("postgres", "INSERT INTO bench SELECT g, 'row number ' || g, g * 1.25, '2024-01-01'::timestamptz"
                        + " + g * interval '1 second', jsonb_build_object('k', g, 'tag', 'x' || (g % 100))"
                        + " FROM generate_series(" + from + ", " + to + ") g");
            }
            // The SQL decoding functions stop at the WAL flush pointer; with asynchronous commit the last
            // commits may not be flushed yet. A synchronous commit with an xid flushes everything before it.
            s.sql("postgres", "SET synchronous_commit = on; CREATE TEMP TABLE flush_marker (i int)");
            int transactions = (rows + batch - 1) / batch;
            System.out.printf("inserted in %.1f s%n", (System.nanoTime() - t0) / 1e9);

            List<String> lines = new ArrayList<>();
            long peekText = peek(s, "peek_text", false, rows, transactions);
            long peekBinary = peek(s, "peek_binary", true, rows, transactions);
            lines.add(String.format("%-16s %9.2f s %12.0f rows/s   (server decoding only: pg_logical_slot_get_binary_changes)",
                    "server/text", peekText / 1e9, rows / (peekText / 1e9)));
            lines.add(String.format("%-16s %9.2f s %12.0f rows/s", "server/binary", peekBinary / 1e9, rows / (peekBinary / 1e9)));
            run(s, warmup, transactions); // JIT and the server's WAL pages warm for everyone
            List<Result> results = new ArrayList<>();
            for (Variant v : variants) {
                System.gc();
                Result r = run(s, v, transactions);
                if (r.rows != rows) throw new IllegalStateException(v.name + " saw " + r.rows + " rows, expected " + rows);
                results.add(r);
            }
            System.out.println();
            System.out.println("variant              wall      rows/s        MB/s  loop CPU  loop B/row  all B/row  wall vs server");
            for (String l : lines) System.out.println(l);
            for (Result r : results) {
                double sec = r.nanos / 1e9;
                long server = r.v.binary ? peekBinary : peekText;
                System.out.printf("%-16s %6.2f s %11.0f %11.1f %7.2f s %11.1f %10.1f %8.2fx%n", r.v.name, sec, r.rows / sec,
                        r.bytes / sec / 1e6, r.loopCpuNanos / 1e9, (double) r.loopAllocated / r.rows,
                        (double) r.allAllocated / r.rows, (double) r.nanos / server);
            }
            System.out.printf("XLogData payload: %d messages, %.1f MB (text), %.1f MB (binary)%n", results.get(0).messages,
                    results.get(0).bytes / 1e6, results.get(3).bytes / 1e6);
        }
    }

    private static String slot(Variant v) {
        return "v_" + v.name.replace('/', '_');
    }

    /**
     * Server-side decoding alone: every change decoded by pgoutput inside the backend, nothing sent.
     * Consumes the slot's own copy with get_binary_changes, call after call, until nothing is left.
     */
    private static long peek(PgServer s, String slot, boolean binary, int rows, int transactions) throws Exception {
        try (PgConnection c = connect(s, ReplicationMode.NONE)) {
            String q = "SELECT count(*) FROM pg_logical_slot_get_binary_changes('" + slot + "', NULL, NULL,"
                    + " 'proto_version', '1', 'publication_names', 'bench_pub', 'binary', '" + binary + "')";
            long total = 0;
            long t = 0;
            int calls = 0;
            while (true) {
                long t0 = System.nanoTime();
                long n = Long.parseLong(await(c.query(q)).singleRow().get(0));
                t += System.nanoTime() - t0;
                calls++;
                if (n == 0) break;
                total += n;
            }
            // Begin + Commit per transaction, one Insert per row; Relation once per call (session).
            long expectedAtLeast = rows + 2L * transactions;
            if (total < expectedAtLeast) throw new IllegalStateException(slot + ": decoded " + total + " < " + expectedAtLeast);
            System.out.printf("%s: %d messages in %d calls%n", slot, total, calls);
            return t;
        }
    }

    private static Result run(PgServer s, Variant v, int transactions) throws Exception {
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            Thread loopThread = repl.eventLoop().submit(Thread::currentThread).get();
            long loopId = loopThread.getId();
            LogicalReplicationOptions opts = LogicalReplicationOptions.builder(slot(v)).publications("bench_pub")
                    .binary(v.binary).statusInterval(Duration.ofSeconds(1)).build();
            long allBefore = allAllocated();
            long cpuBefore = THREADS.getThreadCpuTime(loopId);
            long allocBefore = THREADS.getThreadAllocatedBytes(loopId);
            long t0 = System.nanoTime();
            Counted counted;
            LogicalReplicationStream stream;
            if (v.face == Face.REACTIVE) {
                ReplicationPublisher<ChangeEvent> pub = ReactiveReplication.changes(repl, opts, FlowOptions.defaults());
                ReactiveCounter sub = new ReactiveCounter(transactions);
                pub.subscribe(sub);
                sub.done.await(30, TimeUnit.MINUTES);
                counted = sub;
                stream = pub.stream();
            } else {
                Counter h = v.face == Face.VIEWS ? new ViewCounter(transactions) : new RecordCounter(transactions);
                stream = repl.startLogical(opts, h);
                h.done.await(30, TimeUnit.MINUTES);
                counted = h;
            }
            long nanos = System.nanoTime() - t0;
            long cpu = THREADS.getThreadCpuTime(loopId) - cpuBefore;
            long alloc = THREADS.getThreadAllocatedBytes(loopId) - allocBefore;
            long all = allAllocated() - allBefore;
            StreamMetrics m = repl.eventLoop().submit(stream::metrics).get();
            await(stream.stop());
            System.out.printf("%s: %d rows, sum %d%n", v.name, counted.rows(), counted.sum());
            return new Result(v, counted.rows(), m.bytes(), m.messages(), nanos, cpu, alloc, all);
        }
    }

    private static long allAllocated() {
        long[] ids = THREADS.getAllThreadIds();
        long sum = 0;
        for (long a : THREADS.getThreadAllocatedBytes(ids)) if (a > 0) sum += a;
        return sum;
    }

    private interface Counted {
        long rows();

        long sum();
    }

    private abstract static class Counter implements LogicalStreamHandler, Counted {
        final CountDownLatch done = new CountDownLatch(1);
        final int transactions;
        int commits;
        long rows;
        long sum;

        Counter(int transactions) {
            this.transactions = transactions;
        }

        void committed() {
            if (++commits == transactions) done.countDown();
        }

        @Override
        public long rows() {
            return rows;
        }

        @Override
        public long sum() {
            return sum;
        }
    }

    /** Reads every column in place: the int8 key parsed, other values' length and first byte. */
    private static final class ViewCounter extends Counter {
        ViewCounter(int transactions) {
            super(transactions);
        }

        @Override
        public void onInsert(InsertMessage m) {
            rows++;
            TupleView t = m.newTuple();
            sum += t.int8(0);
            for (int i = 1; i < t.columnCount(); i++) {
                if (t.kind(i) == ColumnKind.NULL) continue;
                sum += t.valueLength(i) + t.buffer().getByte(t.valueIndex(i));
            }
        }

        @Override
        public void onCommit(CommitMessage m) {
            committed();
        }
    }

    /** Materialises every message as a record (copied bytes), then touches every column. */
    private static final class RecordCounter extends Counter {
        private final PgOutputHandler collector = PgOutputRecords.collector(this::accept);

        RecordCounter(int transactions) {
            super(transactions);
        }

        private void accept(PgOutputRecord r) {
            if (r instanceof Insert i) {
                rows++;
                sum += touch(i);
            } else if (r instanceof Commit) {
                committed();
            }
        }

        @Override
        public void onXLogData(XLogData header) {
            // the collector sees the same message through the forwarding methods below
        }

        @Override
        public void onInsert(InsertMessage m) {
            collector.onInsert(m);
        }

        @Override
        public void onCommit(CommitMessage m) {
            collector.onCommit(m);
        }

        @Override
        public void onBegin(io.pgrepl.codec.pgoutput.BeginMessage m) {
            collector.onBegin(m);
        }

        @Override
        public void onRelation(io.pgrepl.codec.pgoutput.RelationMessage m) {
            collector.onRelation(m);
        }
    }

    static long touch(Insert i) {
        long s = 0;
        for (ColumnValue c : i.newTuple().columns()) s += c.kind().ordinal() + (c.bytes() == null ? 0 : c.bytes().length + c.bytes()[0]);
        return s;
    }

    /** The Flow face: one ChangeEvent per message on the publisher's own thread, unbounded demand. */
    private static final class ReactiveCounter implements Flow.Subscriber<ChangeEvent>, Counted {
        final CountDownLatch done = new CountDownLatch(1);
        final int transactions;
        int commits;
        volatile long rows;
        volatile long sum;

        ReactiveCounter(int transactions) {
            this.transactions = transactions;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ChangeEvent e) {
            PgOutputRecord r = e.record();
            if (r instanceof Insert i) {
                rows++;
                sum += touch(i);
            } else if (r instanceof Commit && ++commits == transactions) {
                done.countDown();
            }
        }

        @Override
        public void onError(Throwable t) {
            t.printStackTrace();
            done.countDown();
        }

        @Override
        public void onComplete() {
            done.countDown();
        }

        @Override
        public long rows() {
            return rows;
        }

        @Override
        public long sum() {
            return sum;
        }
    }

    private static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(mode).build()));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.MINUTES);
    }
}
