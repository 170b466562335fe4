package io.pgrepl.benchmarks.drain;

import io.pgrepl.client.reactive.ReplicationPublisher;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * The demand patterns Flow subscribers are written with, chosen by {@code -Ddrain.demand} (a
 * {@code --variant}'s JVM option): {@code one} asks for one item after each (the default);
 * {@code prefetch:N} asks for N first, then one after each; {@code batch:N} asks for N whenever the
 * last N arrived; {@code unbounded} asks for {@code Long.MAX_VALUE} once. Reactor's
 * {@code limitRate:N} is {@link ReactorDrain}'s.
 */
final class Demand {
    /** Reads one item into the running {rows, sum}; true at the commit that ends the drain. */
    interface Consumer<T> {
        boolean consume(T item, long[] rowsSum);
    }

    /** The first request and how many items are taken before the next one, of that size. */
    record Pattern(String name, long first, long every) {
        static Pattern parse(String s) {
            String[] p = s.split(":", 2);
            long n = p.length == 2 ? Long.parseLong(p[1]) : 0;
            return switch (p[0]) {
                case "one" -> new Pattern(s, 1, 1);
                case "prefetch" -> new Pattern(s, n, 1);
                case "batch" -> new Pattern(s, n, n);
                case "unbounded" -> new Pattern(s, Long.MAX_VALUE, 0);
                case "limitRate" -> new Pattern(s, n, 0); // ReactorDrain's
                default -> throw new IllegalArgumentException("-Ddrain.demand=one|prefetch:N|batch:N|unbounded|limitRate:N, not " + s);
            };
        }
    }

    static Pattern pattern() {
        return Pattern.parse(System.getProperty("drain.demand", "one"));
    }

    private Demand() {}

    /** Drains {@code publisher} with {@link #pattern()} until {@code consumer} says the end was reached, then stops the stream. */
    static <T> long[] drain(ReplicationPublisher<T> publisher, Consumer<T> consumer) throws Exception {
        Pattern pattern = pattern();
        CompletableFuture<long[]> done = new CompletableFuture<>();
        publisher.subscribe(new Flow.Subscriber<T>() {
            final long[] rowsSum = new long[2];
            Flow.Subscription subscription;
            long taken;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(pattern.first());
            }

            @Override
            public void onNext(T item) {
                if (consumer.consume(item, rowsSum)) done.complete(rowsSum);
                if (pattern.every() > 0 && ++taken == pattern.every()) {
                    taken = 0;
                    subscription.request(pattern.every());
                }
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
