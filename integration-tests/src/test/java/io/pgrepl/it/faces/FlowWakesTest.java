package io.pgrepl.it.faces;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgTest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The Flow face on a real walsender wakes the subscriber's thread per socket read, not per change:
 * a one-at-a-time subscriber drains a 10,000-row backlog in order, never gets more than
 * it requested, and its executor runs far fewer times than there are changes.
 */
@PgTest
class FlowWakesTest {
    private static final int ROWS = 10_000;

    @Test
    void oneAtATimeSubscriberIsWokenPerReadNotPerChange(PgServer s) throws Exception {
        FacesSupport.setup(s, "fwake");
        s.sql("postgres", "INSERT INTO fwake SELECT g, 'v' || g FROM generate_series(1, " + ROWS + ") g");
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "fwake-subscriber"));
        AtomicInteger wakes = new AtomicInteger();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeEvent> p = ReactiveReplication.changes(repl, FacesSupport.options("fwake").build(),
                    FlowOptions.defaults().withExecutor(r -> {
                        wakes.incrementAndGet();
                        thread.execute(r);
                    }));
            CompletableFuture<Integer> done = new CompletableFuture<>();
            AtomicReference<String> wrong = new AtomicReference<>();
            p.subscribe(new Flow.Subscriber<>() {
                Flow.Subscription subscription;
                long outstanding;
                int next = 1;
                int changes;

                @Override
                public void onSubscribe(Flow.Subscription sub) {
                    subscription = sub;
                    outstanding = 1;
                    sub.request(1);
                }

                @Override
                public void onNext(ChangeEvent e) {
                    changes++;
                    if (--outstanding < 0 && wrong.get() == null) wrong.set("delivered beyond demand at change " + changes);
                    if (e.record() instanceof Insert i) {
                        int id = Integer.parseInt(i.newTuple().get("id").text());
                        if (id != next++ && wrong.get() == null) wrong.set("row " + id + " out of order");
                    } else if (e.record() instanceof Commit && next > ROWS) {
                        done.complete(changes);
                        subscription.cancel();
                        return;
                    }
                    outstanding++;
                    subscription.request(1);
                }

                @Override
                public void onError(Throwable t) {
                    done.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                    done.completeExceptionally(new AssertionError("completed before the last commit"));
                }
            });
            int changes = await(done);
            await(p.terminated());
            assertNull(wrong.get());
            assertTrue(changes >= ROWS + 2, changes + " changes: Begin, the rows (checked in order above), Commit");
            // Measured on PostgreSQL 17: 15 wakes, one per read; 277 with a push (and a wake) per change. A loaded
            // machine's walsender sends in smaller pieces, so there are more reads: 56 wakes were seen at load 8.
            assertTrue(wakes.get() <= ROWS / 100, wakes.get() + " wakes for " + changes + " changes");
            assertEquals(1, await(repl.simpleQuery("IDENTIFY_SYSTEM")).get(0).rows().size(), "stopped cleanly");
        } finally {
            thread.shutdownNow();
        }
        FacesSupport.dropSlot(s, "fwake");
    }
}
