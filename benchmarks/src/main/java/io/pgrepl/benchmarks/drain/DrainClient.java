package io.pgrepl.benchmarks.drain;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import java.nio.ByteBuffer;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * One drain client of {@link DrainHarness}, run as its own process so that its CPU time and peak
 * RSS are its own: it streams a slot from its start to a given commit end LSN, acknowledging each
 * commit, then prints {@code rows=N sum=S} on stderr and exits.
 *
 * <pre>java -cp benchmarks.jar io.pgrepl.benchmarks.drain.DrainClient handler|reactive|flow|reactor|reactive_direct|flow_direct|reactor_direct|pgjdbc HOST PORT USER PASSWORD SLOT PUBLICATION PROTO END_LSN</pre>
 *
 * <p>Every face reads what the table {@code t(id int, a int, b bigint, c text, d timestamptz)} holds:
 * the pgrepl faces parse the three integers and touch the text and timestamp (length and first byte);
 * pgjdbc only looks at each message's type byte (its API has no decoder: the raw-read floor).
 */
public final class DrainClient {
    private DrainClient() {}

    /** Wall-clock millis of the first change (Insert) seen, for the start-up split. */
    static volatile long firstChange;
    /** Wall-clock millis when the connection was ready (authenticated). */
    static volatile long connected;

    private static long startMillis() {
        return ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
    }

    static void firstChange() {
        if (firstChange == 0) firstChange = System.currentTimeMillis();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 9) throw new IllegalArgumentException("usage: handler|reactive|flow|reactor|reactive_direct|flow_direct|reactor_direct|pgjdbc HOST PORT USER PASSWORD SLOT PUB PROTO END_LSN");
        String face = args[0];
        String host = args[1];
        int port = Integer.parseInt(args[2]);
        String user = args[3];
        String password = args[4];
        String slot = args[5];
        String publication = args[6];
        int proto = Integer.parseInt(args[7]);
        long end = parseLsn(args[8]);
        long[] result = switch (face) {
            case "handler" -> handler(host, port, user, password, slot, publication, proto, end);
            case "reactive" -> reactive(host, port, user, password, slot, publication, proto, end, FlowOptions.defaults());
            case "reactive_direct" -> reactive(host, port, user, password, slot, publication, proto, end,
                    FlowOptions.defaults().withEventLoopDelivery());
            case "flow" -> FlowDrain.drain(connect(host, port, user, password), options(slot, publication, proto), end, FlowOptions.defaults());
            case "reactor" -> ReactorDrain.drain(connect(host, port, user, password), options(slot, publication, proto), end, FlowOptions.defaults());
            case "flow_direct" -> FlowDrain.drain(connect(host, port, user, password), options(slot, publication, proto), end,
                    FlowOptions.defaults().withEventLoopDelivery());
            case "reactor_direct" -> ReactorDrain.drain(connect(host, port, user, password), options(slot, publication, proto), end,
                    FlowOptions.defaults().withEventLoopDelivery());
            case "pgjdbc" -> pgjdbc(host, port, user, password, slot, publication, proto, end);
            default -> throw new IllegalArgumentException("unknown face " + face);
        };
        long sinceStart = java.time.Duration.between(ProcessHandle.current().info().startInstant().orElseThrow(),
                java.time.Instant.now()).toMillis();
        System.err.println("rows=" + result[0] + " sum=" + result[1] + " connected_ms=" + (connected - startMillis()) + " first_change_ms=" + (firstChange - startMillis())
                + " end_ms=" + sinceStart + " cpu_s: " + ThreadCpu.summary() + " wakes: " + ThreadCpu.wakes() + " heap: " + ThreadCpu.heap());
        System.exit(0);
    }

    static long parseLsn(String s) {
        int slash = s.indexOf('/');
        return (Long.parseLong(s.substring(0, slash), 16) << 32) | Long.parseLong(s.substring(slash + 1), 16);
    }

    static PgConnection connect(String host, int port, String user, String password) throws Exception {
        PgConnection c = PgConnection.connect(ConnectionConfig.builder().host(host).port(port).user(user).password(password)
                .database("postgres").sslMode(SslMode.DISABLE).replication(ReplicationMode.DATABASE).build())
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        connected = System.currentTimeMillis();
        return c;
    }

    /** {@code -Ddrain.readCoalescingMicros=N} (a --variant's JVM option): the faces' read coalescing; default the library's. */
    private static final Duration READ_COALESCING = Duration.ofNanos(1000 * Long.getLong("drain.readCoalescingMicros",
            LogicalReplicationOptions.builder("x").publications("p").build().readCoalescing().toNanos() / 1000));

    static LogicalReplicationOptions options(String slot, String publication, int proto) {
        return LogicalReplicationOptions.builder(slot).publications(publication).protoVersion(proto)
                .statusInterval(Duration.ofSeconds(10)).readCoalescing(READ_COALESCING).build();
    }

    /** The handler face: flyweight views on the event loop, every column read in place. */
    private static long[] handler(String host, int port, String user, String password, String slot, String pub,
                                  int proto, long end) throws Exception {
        try (PgConnection conn = connect(host, port, user, password)) {
            CompletableFuture<long[]> done = new CompletableFuture<>();
            LogicalStreamHandler h = new LogicalStreamHandler() {
                LogicalReplicationStream stream;
                long rows;
                long sum;

                @Override
                public void onStarted(LogicalReplicationStream s) {
                    stream = s;
                }

                @Override
                public void onInsert(InsertMessage m) {
                    if (rows++ == 0) firstChange();
                    TupleView t = m.newTuple();
                    sum += t.int4(0) + t.int4(1) + t.int8(2);
                    for (int i = 3; i < 5; i++) {
                        if (t.kind(i) == ColumnKind.NULL) continue;
                        sum += t.valueLength(i) + t.buffer().getByte(t.valueIndex(i));
                    }
                }

                @Override
                public void onCommit(CommitMessage m) {
                    stream.acknowledge(m.endLsn());
                    if (Long.compareUnsigned(m.endLsn(), end) >= 0) done.complete(new long[] {rows, sum});
                }
            };
            LogicalReplicationStream stream = conn.startLogical(options(slot, pub, proto), h);
            stream.completion().whenComplete((v, e) -> done.completeExceptionally(
                    e != null ? e : new IllegalStateException("stream ended before the end LSN")));
            long[] r = done.get(30, TimeUnit.MINUTES);
            stream.stop().toCompletableFuture().get(60, TimeUnit.SECONDS);
            return r;
        }
    }

    /**
     * The reactive face: one ChangeEvent (record with copied values) per message, the demand of
     * {@code -Ddrain.demand} ({@link Demand}; one item after each by default), every column read.
     */
    private static long[] reactive(String host, int port, String user, String password, String slot, String pub,
                                   int proto, long end, FlowOptions flow) throws Exception {
        try (PgConnection conn = connect(host, port, user, password)) {
            ReplicationPublisher<ChangeEvent> publisher =
                    ReactiveReplication.changes(conn, options(slot, pub, proto), flow);
            return Demand.drain(publisher, (e, rowsSum) -> consume(e, rowsSum, end));
        }
    }

    /**
     * One event as both reactive clients read it: an Insert's three integers parsed and its text and
     * timestamp touched, in place in the tuple's one array; a Commit acknowledged.
     *
     * @return true at the commit that ends the drain
     */
    static boolean consume(ChangeEvent e, long[] rowsSum, long end) {
        PgOutputRecord r = e.record();
        if (r instanceof Insert i) {
            if (rowsSum[0]++ == 0) firstChange();
            Tuple t = i.newTuple();
            byte[] a = t.array();
            long sum = parseInt(a, t.valueOffset(0), t.valueLength(0)) + parseInt(a, t.valueOffset(1), t.valueLength(1))
                    + parseInt(a, t.valueOffset(2), t.valueLength(2));
            for (int c = 3; c < 5; c++) {
                if (t.hasValue(c)) sum += t.valueLength(c) + a[t.valueOffset(c)];
            }
            rowsSum[1] += sum;
        } else if (r instanceof Commit c) {
            e.acknowledge();
            return Long.compareUnsigned(c.endLsn(), end) >= 0;
        }
        return false;
    }

    /** ASCII decimal digits of a text-format integer (records hold bytes, not parsed values). */
    private static long parseInt(byte[] b, int off, int len) {
        long v = 0;
        int i = off, end = off + len;
        boolean negative = b[off] == '-';
        if (negative) i++;
        for (; i < end; i++) v = v * 10 + (b[i] - '0');
        return negative ? -v : v;
    }

    /** pgjdbc's PGReplicationStream: raw message bytes, only the type byte and the Commit end LSN read. */
    private static long[] pgjdbc(String host, int port, String user, String password, String slot, String pub,
                                 int proto, long end) throws Exception {
        Properties p = new Properties();
        PGProperty.USER.set(p, user);
        PGProperty.PASSWORD.set(p, password);
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "10");
        PGProperty.REPLICATION.set(p, "database");
        PGProperty.PREFER_QUERY_MODE.set(p, "simple");
        PGProperty.SSL_MODE.set(p, "disable");
        try (java.sql.Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/postgres", p)) {
            connected = System.currentTimeMillis();
            PGConnection pg = c.unwrap(PGConnection.class);
            try (PGReplicationStream stream = pg.getReplicationAPI().replicationStream().logical().withSlotName(slot)
                    .withSlotOption("proto_version", proto).withSlotOption("publication_names", pub)
                    .withStatusInterval(10, TimeUnit.SECONDS).start()) {
                long rows = 0;
                long sum = 0;
                while (true) {
                    ByteBuffer b = stream.read();
                    int off = b.arrayOffset() + b.position();
                    byte type = b.array()[off];
                    if (type == 'I') {
                        if (rows++ == 0) firstChange();
                        sum += b.remaining();
                    } else if (type == 'C') {
                        long endLsn = b.getLong(b.position() + 10);
                        LogSequenceNumber lsn = LogSequenceNumber.valueOf(endLsn);
                        stream.setAppliedLSN(lsn);
                        stream.setFlushedLSN(lsn);
                        if (Long.compareUnsigned(endLsn, end) >= 0) {
                            stream.forceUpdateStatus();
                            return new long[] {rows, sum};
                        }
                    }
                }
            }
        }
    }
}
