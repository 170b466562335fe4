package io.pgrepl.benchmarks.drain;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.adapter.JdkFlowAdapter;

/**
 * The {@code reactor} drain client: the Flow face's recycled views through Reactor's JDK Flow
 * adapter, read by a synchronous operator chain (no {@code limitRate}/{@code publishOn}: the
 * publisher's bounded queue is the only buffer, and Reactor's demand drives it directly), every
 * column read, each commit acknowledged; {@code takeUntil} the end commit cancels, which stops the
 * stream. Before the views (2026-12-02) it read copied {@code ChangeEvent}s behind
 * {@code limitRate(256)}.
 */
final class ReactorDrain {
    private ReactorDrain() {}

    static long[] drain(PgConnection conn, LogicalReplicationOptions options, long end, FlowOptions flow) throws Exception {
        try (conn) {
            ReplicationPublisher<ChangeView> publisher = ReactiveReplication.views(conn, options, flow);
            long[] rowsSum = new long[2];
            boolean[] reached = new boolean[1];
            JdkFlowAdapter.flowPublisherToFlux(publisher)
                    .takeUntil(v -> reached[0] = FlowDrain.consume(v, rowsSum, end))
                    .count() // not then(): that looks up a discard hook in the context per element
                    .block(Duration.ofMinutes(30));
            if (!reached[0]) throw new IllegalStateException("stream ended before the end LSN");
            publisher.terminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
            return rowsSum;
        }
    }
}
