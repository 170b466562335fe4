package io.pgrepl.benchmarks.walsender;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One slot's drain for {@link WalsenderCost}, in a process of its own: pgrepl's handler face, the
 * cheapest client, so that the client's cost does not mask the server's. It samples its walsender's
 * {@code /proc/<pid>/stat} after connecting and before {@code START_REPLICATION}, and again once the
 * Commit at the end LSN has arrived, while the walsender is still there (it exits with the
 * connection). The replication connection's backend is the walsender, so its pid is the one in
 * BackendKeyData. Then it prints one line on stderr:
 * {@code rows=N sum=S walsender_pid=P walsender_user_us=U walsender_sys_us=S client_us=C wall_ms=W}.
 *
 * <pre>java -cp benchmarks.jar io.pgrepl.benchmarks.walsender.WalsenderCostClient HOST PORT USER PASSWORD SLOT PUBLICATION text|binary END_LSN</pre>
 */
public final class WalsenderCostClient {
    private WalsenderCostClient() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 8) throw new IllegalArgumentException("usage: HOST PORT USER PASSWORD SLOT PUBLICATION text|binary END_LSN");
        boolean binary = switch (args[6]) {
            case "text" -> false;
            case "binary" -> true;
            default -> throw new IllegalArgumentException("format: text or binary, not " + args[6]);
        };
        long end = parseLsn(args[7]);
        LogicalReplicationOptions.Builder options = LogicalReplicationOptions.builder(args[4]).publications(args[5])
                .protoVersion(1).statusInterval(Duration.ofSeconds(10));
        if (binary) options.binary(true); // text: the option left out, as pgrepl sends it by default
        long t0 = System.nanoTime();
        try (PgConnection conn = PgConnection.connect(ConnectionConfig.builder().host(args[0]).port(Integer.parseInt(args[1]))
                .user(args[2]).password(args[3]).database("postgres").sslMode(SslMode.DISABLE)
                .replication(ReplicationMode.DATABASE).build()).toCompletableFuture().get(5, TimeUnit.MINUTES)) {
            long walsender = conn.backendPid();
            if (walsender <= 0) throw new IllegalStateException("the server sent no BackendKeyData: no walsender pid");
            ProcStat before = ProcStat.read(walsender);
            CompletableFuture<long[]> done = new CompletableFuture<>();
            LogicalReplicationStream stream = conn.startLogical(options.build(), new LogicalStreamHandler() {
                LogicalReplicationStream started;
                long rows;
                long sum;

                @Override
                public void onStarted(LogicalReplicationStream s) {
                    started = s;
                }

                @Override
                public void onInsert(InsertMessage m) {
                    rows++;
                    // Read every value as the drain benchmark's handler does, in either format.
                    TupleView t = m.newTuple();
                    sum += t.int4(0) + t.int4(1) + t.int8(2);
                    for (int i = 3; i < 5; i++) {
                        if (t.kind(i) != ColumnKind.NULL) sum += t.valueLength(i) + t.buffer().getByte(t.valueIndex(i));
                    }
                }

                @Override
                public void onCommit(CommitMessage m) {
                    started.acknowledge(m.endLsn());
                    if (Long.compareUnsigned(m.endLsn(), end) >= 0) done.complete(new long[] {rows, sum});
                }
            });
            stream.completion().whenComplete((v, e) -> done.completeExceptionally(
                    e != null ? e : new IllegalStateException("the stream ended before the end LSN")));
            long[] rowsSum = done.get(30, TimeUnit.MINUTES);
            ProcStat after = ProcStat.read(walsender);
            ProcStat self = ProcStat.self();
            long wallMs = (System.nanoTime() - t0) / 1_000_000;
            stream.stop().toCompletableFuture().get(5, TimeUnit.MINUTES);
            System.err.println("rows=" + rowsSum[0] + " sum=" + rowsSum[1] + " walsender_pid=" + walsender
                    + " walsender_user_us=" + (after.userTicks() - before.userTicks()) * (1_000_000L / ProcStat.TICKS_PER_SECOND)
                    + " walsender_sys_us=" + (after.systemTicks() - before.systemTicks()) * (1_000_000L / ProcStat.TICKS_PER_SECOND)
                    + " client_us=" + self.ticks() * (1_000_000L / ProcStat.TICKS_PER_SECOND) + " wall_ms=" + wallMs);
        }
        System.exit(0);
    }

    static long parseLsn(String s) {
        int slash = s.indexOf('/');
        if (slash < 0) throw new IllegalArgumentException("not an LSN: " + s);
        return (Long.parseLong(s.substring(0, slash), 16) << 32) | Long.parseLong(s.substring(slash + 1), 16);
    }
}
