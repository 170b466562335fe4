package io.pgrepl.benchmarks.drain;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.adapter.JdkFlowAdapter;

/**
 * The {@code reactor} drain client: the Flow face through Reactor's JDK Flow adapter, as
 * {@code examples/ReactorBackpressure} uses it: bounded demand ({@code limitRate(256)}, replenished
 * by Reactor at 75%), every column read, each commit acknowledged; {@code takeUntil} the end commit
 * cancels, which stops the stream.
 */
final class ReactorDrain {
    private ReactorDrain() {}

    static long[] drain(PgConnection conn, LogicalReplicationOptions options, long end) throws Exception {
        try (conn) {
            ReplicationPublisher<ChangeEvent> publisher = ReactiveReplication.changes(conn, options, FlowOptions.defaults());
            long[] rowsSum = new long[2];
            ChangeEvent last = JdkFlowAdapter.flowPublisherToFlux(publisher)
                    .limitRate(256)
                    .takeUntil(e -> DrainClient.consume(e, rowsSum, end))
                    .blockLast(Duration.ofMinutes(30));
            if (last == null) throw new IllegalStateException("stream ended before the end LSN");
            publisher.terminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
            return rowsSum;
        }
    }
}
