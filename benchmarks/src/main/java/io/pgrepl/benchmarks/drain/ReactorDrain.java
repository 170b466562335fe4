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
 * adapter, read by a synchronous operator chain, every column read, each commit acknowledged;
 * {@code takeUntil} the end commit cancels, which stops the stream. By default the chain's demand
 * is unbounded (the publisher's bounded queue is the only buffer); {@code -Ddrain.demand=limitRate:N}
 * puts Reactor's {@code limitRate(N)} in front, which asks for N and then for 3N/4 each time 3N/4
 * arrived.
 */
final class ReactorDrain {
    private ReactorDrain() {}

    static long[] drain(PgConnection conn, LogicalReplicationOptions options, long end, FlowOptions flow) throws Exception {
        try (conn) {
            ReplicationPublisher<ChangeView> publisher = ReactiveReplication.views(conn, options, flow);
            long[] rowsSum = new long[2];
            boolean[] reached = new boolean[1];
            Demand.Pattern demand = Demand.pattern();
            reactor.core.publisher.Flux<ChangeView> flux = JdkFlowAdapter.flowPublisherToFlux(publisher);
            if (demand.name().startsWith("limitRate")) flux = flux.limitRate((int) demand.first());
            else if (!demand.name().equals("one")) throw new IllegalArgumentException("the reactor client takes -Ddrain.demand=limitRate:N or none");
            flux
                    .takeUntil(v -> reached[0] = FlowDrain.consume(v, rowsSum, end))
                    .count() // not then(): that looks up a discard hook in the context per element
                    .block(Duration.ofMinutes(30));
            if (!reached[0]) throw new IllegalStateException("stream ended before the end LSN");
            publisher.terminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
            return rowsSum;
        }
    }
}
