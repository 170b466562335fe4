package io.pgrepl.client.internal.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FlowBuffer#emitNow}, the event-loop delivery's fast path, on a real Netty event loop:
 * an item goes straight to onNext, inside the call, only when the queue would have delivered it at
 * once (demand, nothing queued, no pass running); demand stays exact, a request or cancel from
 * inside onNext is served after it, queued items are never overtaken, a failing lend or a throwing
 * onNext ends the sequence as on the queued path, and any other executor never takes the path.
 */
class FlowBufferEmitNowTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void shutdown() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    private <V> V onLoop(Callable<V> c) throws Exception {
        return loop.submit(c).get(10, TimeUnit.SECONDS);
    }

    /** Records items and the thread and moment (inside an emitNow call or not) of each onNext. */
    private final class Sub implements Flow.Subscriber<Integer> {
        final List<Integer> items = new CopyOnWriteArrayList<>();
        final List<String> wrong = new CopyOnWriteArrayList<>();
        final List<String> terminal = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        volatile Flow.Subscription subscription;
        volatile Consumer<Integer> inOnNext = i -> { };
        final long initial;

        Sub(long initial) {
            this.initial = initial;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (initial > 0) s.request(initial);
        }

        @Override
        public void onNext(Integer item) {
            if (!loop.inEventLoop()) wrong.add("onNext off the loop: " + Thread.currentThread().getName());
            if (!terminal.isEmpty()) wrong.add("onNext " + item + " after " + terminal);
            items.add(item);
            inOnNext.accept(item);
        }

        @Override
        public void onError(Throwable t) {
            terminal.add("error");
            error.set(t);
        }

        @Override
        public void onComplete() {
            terminal.add("complete");
        }
    }

    private FlowBuffer<Integer> started(Sub sub, FlowBufferTest.RecordingUpstream up) throws Exception {
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, new EventLoopExecutor(loop), 8, 2);
        b.upstream(up);
        b.start();
        onLoop(() -> null); // onSubscribe ran (queued to the loop from this thread)
        return b;
    }

    @Test
    void withUnboundedDemandEveryItemGoesStraightToOnNextAndNothingQueues() throws Exception {
        Sub sub = new Sub(Long.MAX_VALUE);
        FlowBuffer<Integer> b = started(sub, new FlowBufferTest.RecordingUpstream());
        boolean[] inside = new boolean[1];
        List<Boolean> seenInside = new CopyOnWriteArrayList<>();
        sub.inOnNext = i -> seenInside.add(inside[0]);
        List<Boolean> taken = onLoop(() -> {
            List<Boolean> t = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                inside[0] = true;
                t.add(b.emitNow(i));
                inside[0] = false;
            }
            return t;
        });
        assertFalse(taken.contains(false), "every item taken");
        assertEquals(1000, sub.items.size());
        assertFalse(seenInside.contains(false), "each onNext ran inside its emitNow call");
        assertEquals(0, b.peakQueued(), "nothing ever queued");
        assertEquals(List.of(), sub.wrong);
        assertFalse(b.emitNow(1000), "off the loop: never");
    }

    @Test
    void oneAtATimeRequestsFromOnNextKeepDemandExact() throws Exception {
        Sub sub = new Sub(1);
        FlowBuffer<Integer> b = started(sub, new FlowBufferTest.RecordingUpstream());
        int[] granted = {1};
        sub.inOnNext = i -> {
            if (sub.items.size() > granted[0]) sub.wrong.add("item " + i + " beyond demand " + granted[0]);
            if (i % 3 != 2) { // every third item asks nothing more: demand reaches 0
                granted[0]++;
                sub.subscription.request(1);
            }
        };
        List<Integer> queuedAt = onLoop(() -> {
            List<Integer> q = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                if (!b.emitNow(i)) {
                    q.add(i);
                    b.offer(i);
                }
            }
            return q;
        });
        // 0, 1, 2 delivered (2 asks nothing); 3.. queue behind, in order
        assertEquals(List.of(0, 1, 2), sub.items);
        assertEquals(List.of(3, 4, 5, 6, 7, 8), queuedAt);
        assertEquals(6, b.queued());
        granted[0]++;
        sub.subscription.request(1); // from the test thread: delivered on the loop, in order
        onLoop(() -> null);
        assertEquals(List.of(0, 1, 2, 3, 4, 5), sub.items, "3 and 4 ask again, 5 does not");
        assertFalse(onLoop(() -> b.emitNow(9)), "6, 7, 8 still queued: 9 must not overtake them");
        b.offer(9);
        assertEquals(List.of(), sub.wrong);
    }

    @Test
    void cancelInsideOnNextStopsEverythingAfterIt() throws Exception {
        Sub sub = new Sub(Long.MAX_VALUE);
        FlowBufferTest.RecordingUpstream up = new FlowBufferTest.RecordingUpstream();
        FlowBuffer<Integer> b = started(sub, up);
        sub.inOnNext = i -> {
            if (i == 3) sub.subscription.cancel();
        };
        List<Boolean> taken = onLoop(() -> List.of(b.emitNow(1), b.emitNow(2), b.emitNow(3), b.emitNow(4)));
        assertEquals(List.of(true, true, true, false), taken);
        assertEquals(List.of(1, 2, 3), sub.items);
        assertEquals(List.of("cancel"), up.calls);
        assertTrue(b.isCancelled());
        assertEquals(List.of(), sub.wrong);
    }

    @Test
    void aThrowingOnNextCancelsAndAFailingLendEndsWithOnError() throws Exception {
        Sub thrower = new Sub(Long.MAX_VALUE);
        FlowBufferTest.RecordingUpstream up = new FlowBufferTest.RecordingUpstream();
        FlowBuffer<Integer> b = started(thrower, up);
        thrower.inOnNext = i -> {
            throw new IllegalStateException("subscriber bug");
        };
        assertEquals(List.of(true, false), onLoop(() -> List.of(b.emitNow(1), b.emitNow(2))));
        assertEquals(List.of(1), thrower.items, "§2.13: no signal after the throw");
        assertEquals(List.of("cancel"), up.calls);

        Sub sub = new Sub(Long.MAX_VALUE);
        FlowBufferTest.RecordingUpstream up2 = new FlowBufferTest.RecordingUpstream();
        FlowBuffer<Integer> b2 = new FlowBuffer<>(sub, new EventLoopExecutor(loop), 8, 2);
        List<Integer> givenBack = new CopyOnWriteArrayList<>();
        b2.lease(new Lease<>() {
            @Override
            public void lend(Integer item) {
                if (item == 2) throw new IllegalArgumentException("malformed " + item);
            }

            @Override
            public void giveBack(Integer item) {
                givenBack.add(item);
            }
        });
        b2.upstream(up2);
        b2.start();
        List<Boolean> taken = onLoop(() -> List.of(b2.emitNow(1), b2.emitNow(2), b2.emitNow(3)));
        assertEquals(List.of(true, true, false), taken, "the failing item ends the sequence; nothing after");
        b2.complete(); // the source's own end after the failure: ignored
        onLoop(() -> null);
        assertEquals(List.of(1), sub.items);
        assertEquals(List.of("error"), sub.terminal);
        assertInstanceOf(IllegalArgumentException.class, sub.error.get());
        assertEquals(List.of(1, 2), givenBack, "both lent items given back");
        assertEquals(List.of("cancel"), up2.calls);
        assertEquals(List.of(), sub.wrong);
    }

    @Test
    void otherExecutorsNeverDeliverInline() throws Exception {
        Sub sub = new Sub(Long.MAX_VALUE);
        FlowBuffer<Integer> inline = new FlowBuffer<>(sub, Runnable::run, 8, 2);
        inline.start();
        assertSame(Boolean.FALSE, onLoop(() -> inline.emitNow(1)));
        assertFalse(inline.emitsNow());
        DeliveryThread thread = new DeliveryThread("emit-now-test-", 1_000);
        FlowBuffer<Integer> threaded = new FlowBuffer<>(new Sub(Long.MAX_VALUE), thread, 8, 2);
        threaded.start();
        assertSame(Boolean.FALSE, onLoop(() -> threaded.emitNow(1)));
        assertTrue(sub.items.isEmpty());
    }
}
