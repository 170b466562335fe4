package io.pgrepl.it.faces;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.it.fault.FaultMajors;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
 * {@link FlowOptions#withEventLoopDelivery()} on a real walsender: every
 * signal runs on the connection's event loop, in server order, never beyond demand; a request made
 * inside onNext is served flat, one made on another thread resumes delivery on the loop (not on the
 * requesting thread); with no demand the rest waits in the bounded queue and socket reading pauses,
 * while status updates still go out (wal_sender_timeout = 2 s is outlived); a cancel inside onNext
 * stops the stream cleanly and nothing follows it. The views' fast path (a view lent over the read's
 * own bytes while demand is there and nothing is queued) keeps the same rules and gives the same
 * events as the copies. Newest major only: the path is the client's.
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

    /**
     * Event-loop delivery's fast path: with demand and nothing queued a
     * view is lent over the socket read's own bytes, never copied or queued (the peak stays 0). The
     * same slot data read on the default delivery thread (copies) gives equal {@code toEvent()}s, a
     * 100 kB value spanning reads included; demand stays exact with request(1) from onNext; a view
     * kept past its onNext is refused; a cancel inside onNext ends it cleanly.
     */
    @Test
    void viewsLentOverTheReadMatchTheCopiesAndKeepEveryRule() throws Exception {
        PgServer s = server();
        int rows = 3_000;
        FacesSupport.setup(s, "floop3");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('floop3_copy', 'pgoutput')");
        for (int tx = 0; tx < 3; tx++) {
            int from = tx * (rows / 3) + 1;
            s.sql("postgres", "INSERT INTO floop3 SELECT g, 'v' || g FROM generate_series(" + from + ", " + (from + rows / 3 - 1) + ") g");
        }
        s.sql("postgres", "UPDATE floop3 SET v = repeat('x', 100000) WHERE id = 7; DELETE FROM floop3 WHERE id = 8");
        s.sql("postgres", "SELECT pg_logical_emit_message(false, 'end', 'x')");

        List<ChangeEvent> copies = new ArrayList<>();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeView> p = ReactiveReplication.views(repl,
                    LogicalReplicationOptions.builder("floop3_copy").publications("floop3_pub")
                            .statusInterval(Duration.ofMillis(500)).messages(true).build(), FlowOptions.defaults());
            ViewReader reader = new ViewReader(repl, false, copies);
            p.subscribe(reader);
            await(reader.done);
            await(p.terminated());
            assertNull(reader.wrong.get());
        }
        List<ChangeEvent> lent = new ArrayList<>();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeView> p = ReactiveReplication.views(repl, FacesSupport.options("floop3").messages(true).build(),
                    FlowOptions.defaults().withEventLoopDelivery());
            ViewReader reader = new ViewReader(repl, true, lent);
            p.subscribe(reader);
            await(reader.done);
            await(p.terminated());
            assertNull(reader.wrong.get());
            assertEquals(0, p.peakQueued(), "every view delivered at once, none copied into the queue");
            assertEquals(lent.size() - 1, reader.refused, "each view kept from the last onNext was refused");
            assertEquals(0, reader.afterCancel.get(), "no onNext after cancel");
            assertEquals(1, await(repl.simpleQuery("IDENTIFY_SYSTEM")).get(0).rows().size(), "stopped cleanly");
        }
        assertTrue(copies.size() >= rows + 8, copies.size() + " messages");
        assertEquals(copies.size(), lent.size());
        for (int i = 0; i < copies.size(); i++) {
            ChangeEvent c = copies.get(i);
            ChangeEvent l = lent.get(i);
            if (c.record() instanceof Message cm && l.record() instanceof Message lm) {
                assertEquals(cm.prefix(), lm.prefix());
                assertArrayEquals(cm.content(), lm.content());
            } else {
                assertEquals(c.record(), l.record(), "message " + i);
            }
            assertEquals(c.walStart(), l.walStart(), "walStart of message " + i);
            assertEquals(c.table(), l.table(), "table of message " + i);
        }
        FacesSupport.dropSlot(s, "floop3");
        FacesSupport.dropSlot(s, "floop3_copy");
    }

    /** request(1) from onNext, keeps every message's toEvent(), cancels inside onNext at the end message. */
    private static final class ViewReader implements Flow.Subscriber<ChangeView> {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final AtomicReference<String> wrong = new AtomicReference<>();
        final AtomicInteger afterCancel = new AtomicInteger();
        final PgConnection repl;
        final boolean onLoop;
        final List<ChangeEvent> events;
        Flow.Subscription subscription;
        long outstanding;
        ChangeView previous;
        int refused;
        boolean cancelled;

        ViewReader(PgConnection repl, boolean onLoop, List<ChangeEvent> events) {
            this.repl = repl;
            this.onLoop = onLoop;
            this.events = events;
        }

        private void wrong(String what) {
            wrong.compareAndSet(null, what + " at message " + events.size());
        }

        @Override
        public void onSubscribe(Flow.Subscription sub) {
            subscription = sub;
            outstanding = 1;
            sub.request(1);
        }

        @Override
        public void onNext(ChangeView v) {
            if (cancelled) {
                afterCancel.incrementAndGet();
                return;
            }
            if (repl.eventLoop().inEventLoop() != onLoop) wrong("onNext on " + Thread.currentThread().getName());
            if (--outstanding < 0) wrong("delivered beyond demand");
            if (previous != null && previous != v) { // a pooled copy may be the same object again
                try {
                    previous.message();
                    wrong("a view read in the next onNext");
                } catch (IllegalStateException expected) {
                    refused++;
                }
            }
            previous = v;
            events.add(v.toEvent());
            if (v.message() instanceof LogicalMessage m && !m.transactional()) {
                cancelled = true;
                subscription.cancel(); // inside onNext, on the loop when onLoop
                done.complete(null);
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
            done.completeExceptionally(new AssertionError("completed before the end message"));
        }
    }

    /**
     * Demand running out in the middle of a read on the fast path: the rest of the read is copied
     * and queued, reading pauses, nothing more is delivered; a request from the test thread delivers
     * the rest on the loop, queued views first, in order.
     */
    @Test
    void demandRunningOutMidReadQueuesTheRestAndAForeignRequestResumesOnTheLoop() throws Exception {
        PgServer s = server();
        int rows = 3_000;
        int first = 1_000;
        FacesSupport.setup(s, "floop4");
        s.sql("postgres", "INSERT INTO floop4 SELECT g, repeat('x', 1000) FROM generate_series(1, " + rows + ") g");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeView> p = ReactiveReplication.views(repl, FacesSupport.options("floop4").build(),
                    FlowOptions.defaults().withEventLoopDelivery().withWatermarks(HIGH, 2));
            AtomicReference<String> wrong = new AtomicReference<>();
            AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong outstanding = new AtomicLong();
            AtomicInteger signals = new AtomicInteger();
            AtomicInteger inserts = new AtomicInteger();
            Semaphore firstUsed = new Semaphore(0);
            Semaphore subscribed = new Semaphore(0);
            Thread requester = Thread.currentThread();
            p.subscribe(new Flow.Subscriber<>() {
                int next = 1;

                @Override
                public void onSubscribe(Flow.Subscription sub) {
                    subscription.set(sub);
                    subscribed.release();
                }

                @Override
                public void onNext(ChangeView v) {
                    signals.incrementAndGet();
                    if (!repl.eventLoop().inEventLoop() || Thread.currentThread() == requester) {
                        wrong.compareAndSet(null, "onNext on " + Thread.currentThread().getName() + ", not the loop");
                    }
                    if (v.message() instanceof InsertMessage m) {
                        inserts.incrementAndGet();
                        int id = m.newTuple().int4(0);
                        if (id != next++) wrong.compareAndSet(null, "row " + id + " out of order");
                    }
                    long left = outstanding.decrementAndGet();
                    if (left < 0) wrong.compareAndSet(null, "delivered beyond demand");
                    if (left == 0) firstUsed.release();
                }

                @Override
                public void onError(Throwable t) {
                    failure.set(t);
                    firstUsed.release();
                }

                @Override
                public void onComplete() {
                    failure.set(new AssertionError("completed before the last row"));
                    firstUsed.release();
                }
            });
            assertTrue(subscribed.tryAcquire(60, TimeUnit.SECONDS), "onSubscribe ran");
            outstanding.set(first);
            subscription.get().request(first); // from this thread
            assertTrue(firstUsed.tryAcquire(60, TimeUnit.SECONDS), "the first demand was used up");
            waitUntil("socket reading paused", Duration.ofSeconds(60), () -> p.pauses() >= 1);
            assertNull(failure.get());
            assertEquals(first, signals.get(), "exactly the demand, the rest waits");
            assertTrue(p.queued() > 0, "the rest of the read was queued");
            outstanding.set(Long.MAX_VALUE / 2);
            subscription.get().request(Long.MAX_VALUE); // from this thread again: delivered on the loop
            waitUntil("every row", Duration.ofSeconds(60), () -> inserts.get() == rows || failure.get() != null);
            assertNull(failure.get());
            assertNull(wrong.get());
            assertTrue(p.peakQueued() <= HIGH + READ_SLACK, "queue bounded by watermark + one read, peak " + p.peakQueued());
            assertEquals(0, p.queued());
            subscription.get().cancel();
            await(p.terminated());
        }
        FacesSupport.dropSlot(s, "floop4");
    }
}
