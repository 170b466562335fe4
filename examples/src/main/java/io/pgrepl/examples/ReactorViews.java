package io.pgrepl.examples;

import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;

import java.time.Duration;

/**
 * Example 2b, Reactor over the Flow face's recycled views ({@code ReactiveReplication.views}): no
 * copy per change, so a long stream touches little heap on the JVM's defaults. A view is valid
 * until onNext returns, so the chain reads it synchronously, first thing: {@code handle} turns each
 * Insert into the one number kept (an order's customer) and acknowledges each commit. No
 * {@code limitRate} or {@code publishOn} before that: they would queue views past their onNext, and
 * the publisher's own bounded queue (pausing the socket above its high watermark) already buffers.
 * After {@code handle}, values are plain Java objects and any operator may follow.
 *
 * <p>The whole chain is synchronous and never blocks, so it runs on the stream's event loop
 * ({@link FlowOptions#withEventLoopDelivery()}): no delivery thread, no wake per socket read. A
 * chain that may block (I/O, a lock, {@code Thread.sleep}) must not: it would stop the loop from
 * reading and from answering keepalives. Give it a thread with {@code publishOn} after
 * {@code handle}, or keep {@code FlowOptions.defaults()} (see {@link ReactorBackpressure}).
 */
public final class ReactorViews {
    public static void main(String[] args) throws Exception {
        int transactions = 10;
        int ordersPerTx = 300;
        try (ExampleDatabase db = ExampleDatabase.open(args)) {
            db.workload(transactions, ordersPerTx);
            ReplicationPublisher<ChangeView> publisher = ReactiveReplication.views(db.replication,
                    db.options().build(), FlowOptions.defaults().withEventLoopDelivery());
            int[] commits = new int[1];
            long orders = transactions * (long) ordersPerTx;
            Long customersSeen = JdkFlowAdapter.flowPublisherToFlux(publisher)
                    .<Integer>handle((view, sink) -> {
                        if (view.message() instanceof InsertMessage m && "ex_orders".equals(view.table())) {
                            TupleView row = m.newTuple();
                            sink.next(row.int4(1)); // the customer column, read in place
                        } else if (view.message() instanceof CommitMessage) {
                            view.acknowledge(); // confirms this commit's end LSN
                            commits[0]++;
                        }
                    })
                    .take(orders) // cancels after the last order: the stream stops cleanly
                    .distinct()
                    .count()
                    .block(Duration.ofMinutes(2));
            ExampleDatabase.await(publisher.terminated());
            System.out.printf("%d orders from %d customers; %d commits acknowledged; peak queue %d views%n",
                    orders, customersSeen, commits[0], publisher.peakQueued());
        }
    }
}
