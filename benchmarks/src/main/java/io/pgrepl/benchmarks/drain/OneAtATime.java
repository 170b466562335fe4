package io.pgrepl.benchmarks.drain;

import io.pgrepl.client.reactive.ReplicationPublisher;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/** The careful subscriber both Flow clients are: {@code request(1)} after each item. */
final class OneAtATime {
    /** Reads one item into the running {rows, sum}; true at the commit that ends the drain. */
    interface Consumer<T> {
        boolean consume(T item, long[] rowsSum);
    }

    private OneAtATime() {}

    /** Drains {@code publisher} until {@code consumer} says the end was reached, then stops the stream. */
    static <T> long[] drain(ReplicationPublisher<T> publisher, Consumer<T> consumer) throws Exception {
        CompletableFuture<long[]> done = new CompletableFuture<>();
        publisher.subscribe(new Flow.Subscriber<T>() {
            final long[] rowsSum = new long[2];
            Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(1);
            }

            @Override
            public void onNext(T item) {
                if (consumer.consume(item, rowsSum)) done.complete(rowsSum);
                subscription.request(1);
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                done.completeExceptionally(new IllegalStateException("stream ended before the end LSN"));
            }
        });
        long[] r = done.get(30, TimeUnit.MINUTES);
        publisher.stream().stop().toCompletableFuture().get(60, TimeUnit.SECONDS);
        return r;
    }
}
