package io.pgrepl.it.faces;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.pgrepl.it.fault.FaultMajors;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link FlowOptions#withEventLoopDelivery()} on a real walsender (issue 22, ninth session): every
 * signal runs on the connection's event loop, in server order, never beyond demand; a request made
 * inside onNext is served flat, one made on another thread resumes delivery on the loop (not on the
 * requesting thread); with no demand the rest waits in the bounded queue and socket reading pauses,
 * while status updates still go out (wal_sender_timeout = 2 s is outlived); a cancel inside onNext
 * stops the stream cleanly and nothing follows it. Newest major only: the path is the client's.
 */
class EventLoopDeliveryTest {
    private static final FaultMajors MAJORS = new FaultMajors(Map.of("wal_sender_timeout", "2s"));
    private static final int HIGH = 8;
    /** One receive buffer (64 KiB) of ~1 KiB messages beyond the watermark, as in SlowConsumerTest. */
    private static final int READ_SLACK = 100;

    @AfterAll
    static void stopServers() {
        MAJORS.close();
    }

    private static PgServer server() {
        return MAJORS.server(Collections.max(PgVersions.matrix()));
    }

    @Test
    void oneAtATimeOnTheLoopInOrderAndCancelInsideOnNextEndsIt() throws Exception {
        PgServer s = server();
        int rows = 10_000;
        FacesSupport.setup(s, "floop1");
        s.sql("postgres", "INSERT INTO floop1 SELECT g, 'v' || g FROM generate_series(1, " + rows + ") g");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeEvent> p = ReactiveReplication.changes(repl, FacesSupport.options("floop1").build(),
                    FlowOptions.defaults().withEventLoopDelivery());
            CompletableFuture<Integer> done = new CompletableFuture<>();
            AtomicReference<String> wrong = new AtomicReference<>();
            AtomicInteger afterCancel = new AtomicInteger();
            p.subscribe(new Flow.Subscriber<>() {
                Flow.Subscription subscription;
                long outstanding;
                int next = 1;
                int changes;
                boolean cancelled;

                private void wrong(String what) {
                    wrong.compareAndSet(null, what);
                }

                @Override
                public void onSubscribe(Flow.Subscription sub) {
                    if (!repl.eventLoop().inEventLoop()) wrong("onSubscribe off the loop: " + Thread.currentThread().getName());
                    subscription = sub;
                    outstanding = 1;
                    sub.request(1);
                }

                @Override
                public void onNext(ChangeEvent e) {
                    if (cancelled) {
                        afterCancel.incrementAndGet();
                        return;
                    }
                    changes++;
                    if (!repl.eventLoop().inEventLoop()) wrong("onNext off the loop: " + Thread.currentThread().getName());
                    if (--outstanding < 0) wrong("delivered beyond demand at change " + changes);
                    if (e.record() instanceof Insert i) {
                        int id = Integer.parseInt(i.newTuple().get("id").text());
                        if (id != next++) wrong("row " + id + " out of order");
                    } else if (e.record() instanceof Commit && next > rows) {
                        cancelled = true;
                        subscription.cancel(); // on the loop, inside onNext
                        done.complete(changes);
                        return;
                    }
                    outstanding++;
                    subscription.request(1); // re-entrant: served after this onNext returns, not inside it
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
            assertEquals(0, afterCancel.get(), "no onNext after cancel");
            assertTrue(changes >= rows + 2, changes + " changes: Begin, the rows (checked in order above), Commit");
            assertEquals(1, await(repl.simpleQuery("IDENTIFY_SYSTEM")).get(0).rows().size(), "stopped cleanly");
        }
        FacesSupport.dropSlot(s, "floop1");
    }

    @Test
    void demandFromAnotherThreadResumesOnTheLoopAndNoDemandPausesReadingNotStatusUpdates() throws Exception {
        PgServer s = server();
        int rows = 3_000;
        int batch = 500;
        FacesSupport.setup(s, "floop2");
        // ~1 KiB per row: one socket read holds a few dozen messages, so the pause shows in the peak
        s.sql("postgres", "INSERT INTO floop2 SELECT g, repeat('x', 1000) FROM generate_series(1, " + rows + ") g");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeEvent> p = ReactiveReplication.changes(repl, FacesSupport.options("floop2").build(),
                    FlowOptions.defaults().withEventLoopDelivery().withWatermarks(HIGH, 2));
            AtomicReference<String> wrong = new AtomicReference<>();
            AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong outstanding = new AtomicLong();
            AtomicInteger inserts = new AtomicInteger();
            AtomicInteger signals = new AtomicInteger();
            Semaphore demandUsed = new Semaphore(0);
            Semaphore subscribed = new Semaphore(0);
            Thread requester = Thread.currentThread();
            p.subscribe(new Flow.Subscriber<>() {
                int next = 1;

                private void check() {
                    signals.incrementAndGet();
                    if (!repl.eventLoop().inEventLoop() || Thread.currentThread() == requester) {
                        wrong.compareAndSet(null, "signal on " + Thread.currentThread().getName() + ", not the loop");
                    }
                }

                @Override
                public void onSubscribe(Flow.Subscription sub) {
                    check();
                    subscription.set(sub);
                    subscribed.release();
                }

                @Override
                public void onNext(ChangeEvent e) {
                    check();
                    if (e.record() instanceof Insert i) {
                        inserts.incrementAndGet();
                        int id = Integer.parseInt(i.newTuple().get("id").text());
                        if (id != next++) wrong.compareAndSet(null, "row " + id + " out of order");
                    }
                    long left = outstanding.decrementAndGet();
                    if (left < 0) wrong.compareAndSet(null, "delivered beyond demand");
                    if (left == 0 || inserts.get() == rows) demandUsed.release(); // the last batch is not used up
                }

                @Override
                public void onError(Throwable t) {
                    failure.set(t);
                    demandUsed.release();
                }

                @Override
                public void onComplete() {
                    failure.set(new AssertionError("completed before the last row"));
                    demandUsed.release();
                }
            });
            assertTrue(subscribed.tryAcquire(60, TimeUnit.SECONDS), "onSubscribe ran");
            boolean lapsed = false;
            while (inserts.get() < rows && failure.get() == null) {
                outstanding.addAndGet(batch);
                subscription.get().request(batch); // from this thread, never the loop
                assertTrue(demandUsed.tryAcquire(60, TimeUnit.SECONDS), "the batch was delivered");
                if (!lapsed) {
                    lapsed = true;
                    // No demand: the rest of the read waits in the queue and reading pauses ...
                    waitUntil("socket reading paused", Duration.ofSeconds(60), () -> p.pauses() >= 1);
                    int signalsBefore = signals.get();
                    // ... while the "slow" subscriber works elsewhere for 2.5 wal_sender_timeouts: the
                    // loop is free, status updates go out, the walsender keeps the connection.
                    Thread.sleep(5_000);
                    assertFalse(p.stream().completion().toCompletableFuture().isDone(), "walsender did not time out");
                    assertEquals(signalsBefore, signals.get(), "nothing delivered without demand");
                    assertEquals(0, outstanding.get());
                }
            }
            assertNull(failure.get());
            assertNull(wrong.get());
            assertEquals(rows, inserts.get());
            assertTrue(p.peakQueued() <= HIGH + READ_SLACK, "queue bounded by watermark + one read, peak " + p.peakQueued());
            subscription.get().cancel();
            await(p.terminated());
        }
        FacesSupport.dropSlot(s, "floop2");
    }
}
