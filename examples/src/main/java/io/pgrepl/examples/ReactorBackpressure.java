package io.pgrepl.examples;

import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.codec.pgoutput.record.Insert;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Example 2, the Flow face through Reactor: {@code limitRate(16)} asks for 16 events at a time and
 * a deliberately slow consumer (2 ms per event) holds demand down. The publisher queues at most its
 * high watermark (64 here) plus one socket read (64 KiB, a few hundred small messages), pauses
 * socket reading meanwhile (keepalives go on)
 * and resumes below the low watermark: the log shows the queue staying small and the pause count
 * climbing while the server has far more ready. Its consumer sleeps, so it keeps the publisher's
 * own delivery thread ({@code FlowOptions.defaults()}), never {@code withEventLoopDelivery()}: a
 * sleep there would stall the event loop's reads and keepalive answers.
 */
public final class ReactorBackpressure {
    public static void main(String[] args) throws Exception {
        int transactions = 10;
        int ordersPerTx = 300;
        try (ExampleDatabase db = ExampleDatabase.open(args)) {
            db.workload(transactions, ordersPerTx); // everything is waiting in the slot before we read
            ReplicationPublisher<ChangeEvent> publisher = ReactiveReplication.changes(db.replication,
                    db.options().build(), FlowOptions.defaults().withWatermarks(64, 16));
            AtomicLong seen = new AtomicLong();
            long expectedInserts = (long) transactions * (ordersPerTx + 1);
            Flux<ChangeEvent> changes = JdkFlowAdapter.flowPublisherToFlux(publisher);
            long inserts = changes
                    .limitRate(16)
                    .doOnNext(e -> {
                        sleep(2); // the slow part of a real pipeline
                        if (seen.incrementAndGet() % 500 == 0) {
                            System.out.printf("%6d events, queued %3d (peak %d), socket paused %d times%n",
                                    seen.get(), publisher.queued(), publisher.peakQueued(), publisher.pauses());
                        }
                        e.acknowledge(); // confirms at commits only; a no-op on the other messages
                    })
                    .filter(e -> e.record() instanceof Insert)
                    .take(expectedInserts) // cancels after the last one: the stream stops cleanly
                    .count()
                    .block(Duration.ofMinutes(2));
            ExampleDatabase.await(publisher.terminated());
            System.out.printf("%d inserts; peak queue %d events for %d events in total%n", inserts,
                    publisher.peakQueued(), seen.get());
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
