package io.pgrepl.client.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import io.pgrepl.client.internal.reactive.DeliveryThread;
import io.pgrepl.client.internal.reactive.EventLoopExecutor;
import io.pgrepl.client.internal.reactive.FlowBuffer;
import io.pgrepl.client.internal.reactive.ReadBatchSink;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.RawChangeHandler;
import io.pgrepl.client.stream.ReplicationProtocolException;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The views' path without a server: pgoutput bytes framed on a real Netty event loop (row changes
 * handed over undecoded, as {@link RawChangeHandler}), decoded once on the publisher's
 * {@link DeliveryThread}, through a small {@link FlowBuffer} that fills and pauses its source. The
 * subscriber never gets more than it requested, every row arrives once and in order, a view kept
 * past its onNext refuses to be read, and a malformed row change ends the sequence with a typed
 * onError instead of being delivered or retried.
 */
class ChangeViewDeliveryTest {
    private static final int REL = 16384;
    private static final int HIGH = 16;
    private static final int LOW = 4;
    private static final int READ = 40;

    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final List<String> wrong = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutdown() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    /** Relation {@code public.t(id int4, v text)}, as pgoutput (proto 1) sends it. */
    private static ByteBuf relation() {
        ByteBuf b = Unpooled.buffer();
        b.writeByte('R').writeInt(REL);
        cstring(b, "public");
        cstring(b, "t");
        b.writeByte('d').writeShort(2);
        b.writeByte(1);
        cstring(b, "id");
        b.writeInt(23).writeInt(-1);
        b.writeByte(0);
        cstring(b, "v");
        b.writeInt(25).writeInt(-1);
        return b;
    }

    /** Insert of ({@code id}, 'v' || id) in text format. */
    private static ByteBuf insert(int id) {
        ByteBuf b = Unpooled.buffer();
        b.writeByte('I').writeInt(REL).writeByte('N').writeShort(2);
        byte[] k = Integer.toString(id).getBytes(StandardCharsets.US_ASCII);
        byte[] v = ("v" + id).getBytes(StandardCharsets.US_ASCII);
        b.writeByte('t').writeInt(k.length).writeBytes(k);
        b.writeByte('t').writeInt(v.length).writeBytes(v);
        return b;
    }

    private static void cstring(ByteBuf b, String s) {
        b.writeBytes(s.getBytes(StandardCharsets.US_ASCII)).writeByte(0);
    }

    /** The event loop's side: a relation, then inserts in reads of {@link #READ}, stopping while paused. */
    private final class Source implements FlowBuffer.Upstream {
        final FlowBuffer<ChangeView> buffer;
        final LogicalStreamHandler handler;
        final int rows;
        final ByteBuf[] extra;
        final AtomicBoolean paused = new AtomicBoolean();
        final AtomicBoolean cancelled = new AtomicBoolean();
        final AtomicBoolean finished = new AtomicBoolean();
        final PgOutputDecoder loopDecoder = new PgOutputDecoder();
        int next = 1;

        Source(ChangeViewPool pool, FlowBuffer<ChangeView> buffer, int rows, ByteBuf... extra) {
            this.buffer = buffer;
            this.handler = pool.forwarder(new ReadBatchSink<>(buffer, loop), lsn -> {});
            this.rows = rows;
            this.extra = extra;
        }

        void start() {
            loop.execute(() -> {
                ByteBuf r = relation();
                loopDecoder.decode(r, 0, r.writerIndex(), handler);
                kick();
            });
        }

        /** Loop only: one chain of reads at a time, as one channel's autoRead gives. */
        private boolean reading;

        private void kick() {
            if (reading) return;
            reading = true;
            read();
        }

        private void read() {
            for (int i = 0; i < READ && next <= rows && !cancelled.get(); i++) {
                ByteBuf b = insert(next++);
                ((RawChangeHandler) handler).onRawChange(b, 0, b.writerIndex());
            }
            if (next > rows) {
                for (ByteBuf b : extra) ((RawChangeHandler) handler).onRawChange(b, 0, b.writerIndex());
                finished.set(true);
                reading = false;
                buffer.complete();
            } else if (!paused.get() && !cancelled.get()) {
                loop.execute(this::read);
            } else {
                reading = false;
            }
        }

        @Override
        public void pause() {
            paused.set(true);
        }

        @Override
        public void resume() {
            if (paused.compareAndSet(true, false)) loop.execute(this::kick);
        }

        @Override
        public void cancel() {
            cancelled.set(true);
        }
    }

    /** Checks each view as the rows' reader would, and records what it saw. */
    private final class Reader implements Flow.Subscriber<ChangeView> {
        final AtomicLong granted = new AtomicLong();
        final AtomicLong delivered = new AtomicLong();
        final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final AtomicBoolean completed = new AtomicBoolean();
        final AtomicInteger heldAndRefused = new AtomicInteger();
        /** Views lent over the source's own buffers (event-loop delivery's fast path), not copies. */
        final AtomicInteger overRead = new AtomicInteger();
        int nextRow = 1;
        ChangeView previous;

        void request(long n) {
            granted.addAndGet(n); // before request(): onNext may run at once on the delivery thread
            subscription.get().request(n);
        }

        private void checkRefused(ChangeView v, String when) {
            if (v == null) return;
            try {
                v.message();
                wrong.add("a view read " + when + " after its onNext");
            } catch (IllegalStateException expected) {
                heldAndRefused.incrementAndGet();
            }
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription.set(s);
        }

        @Override
        public void onNext(ChangeView v) {
            long d = delivered.incrementAndGet();
            if (v.borrowed != null) overRead.incrementAndGet();
            if (d > granted.get() && wrong.size() < 5) wrong.add("onNext " + d + " with only " + granted.get() + " requested");
            if (previous != null && previous != v) checkRefused(previous, "in the next onNext");
            previous = v;
            if (v.message() instanceof InsertMessage m) {
                int id = m.newTuple().int4(0);
                if (id != nextRow || !("v" + id).equals(m.newTuple().text(1)) || !"t".equals(v.table())) {
                    wrong.add("row " + id + " (" + m.newTuple().text(1) + " on " + v.table() + "), expected " + nextRow);
                }
                nextRow++;
            }
        }

        @Override
        public void onError(Throwable t) {
            error.set(t);
            checkRefused(previous, "at onError");
        }

        @Override
        public void onComplete() {
            completed.set(true);
            checkRefused(previous, "at onComplete");
        }
    }

    private static void waitFor(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(1);
        }
    }

    @Test
    void aFullBufferNeverDeliversBeyondDemandAndViewsDoNotOutliveOnNext() throws Exception {
        Reader reader = fullBuffer(new DeliveryThread("view-test-", 1_000));
        assertEquals(0, reader.overRead.get(), "a delivery thread always gets copies");
    }

    /**
     * The same on the event loop: views whose subscriber has demand and nothing queued before them
     * are lent over the read's own bytes, the others copied and queued, all in one order.
     */
    @Test
    void onTheEventLoopViewsOverTheReadsBytesKeepTheSameRules() throws Exception {
        Reader reader = fullBuffer(new EventLoopExecutor(loop));
        assertTrue(reader.overRead.get() > 0, "some views lent over the read's bytes");
        assertTrue(reader.overRead.get() < reader.delivered.get(), "and the rest copied: " + reader.overRead.get());
    }

    private Reader fullBuffer(Executor executor) throws Exception {
        int rows = 3_000;
        ChangeViewPool pool = new ChangeViewPool(HIGH);
        Reader reader = new Reader();
        FlowBuffer<ChangeView> buffer = new FlowBuffer<>(reader, executor, HIGH, LOW);
        buffer.lease(pool);
        Source source = new Source(pool, buffer, rows);
        buffer.upstream(source);
        buffer.start();
        waitFor("onSubscribe", () -> reader.subscription.get() != null);
        source.start();
        int fullTimes = 0;
        while (!reader.completed.get() && wrong.isEmpty()) {
            // Let the source fill the buffer past its high watermark (it pauses), then take a few.
            waitFor("a paused source or the end", () -> source.paused.get() || source.finished.get());
            if (source.paused.get()) fullTimes++;
            long before = reader.delivered.get();
            int n = ThreadLocalRandom.current().nextInt(1, 8);
            reader.request(n);
            waitFor("the granted rows", () -> reader.delivered.get() == reader.granted.get() || reader.completed.get());
            if (!reader.completed.get() && reader.delivered.get() - before != n) wrong.add("asked " + n + ", got " + (reader.delivered.get() - before));
            if (buffer.queued() == 0 && source.finished.get()) reader.request(1); // lets onComplete through
        }
        assertEquals(List.of(), wrong);
        assertTrue(reader.completed.get(), "onComplete ran");
        assertEquals(rows + 1, reader.nextRow, "every row once, in order");
        assertEquals(rows + 1, reader.delivered.get(), "the relation and every row");
        assertTrue(fullTimes > 50 && buffer.pauses() > 50, "the buffer filled and paused the source: " + fullTimes + " / " + buffer.pauses());
        // A resume lets reading go on once at most LOW were queued; on a busy box it can come while
        // a read is still running (the loop thread preempted), so the rest of that read and one more.
        assertTrue(buffer.peakQueued() <= LOW + 2 * READ, "peak " + buffer.peakQueued());
        assertTrue(reader.heldAndRefused.get() > 0, "a held view was refused");
        return reader;
    }

    @Test
    void aMalformedRowChangeEndsTheSequenceWithATypedError() throws Exception {
        malformed(new DeliveryThread("view-test-", 1_000));
    }

    @Test
    void aMalformedRowChangeLentOverTheReadEndsTheSequenceToo() throws Exception {
        Reader reader = malformed(new EventLoopExecutor(loop));
        assertEquals(6, reader.overRead.get(), "demand for all: every view lent over the read");
    }

    private Reader malformed(Executor executor) throws Exception {
        ChangeViewPool pool = new ChangeViewPool(HIGH);
        Reader reader = new Reader();
        FlowBuffer<ChangeView> buffer = new FlowBuffer<>(reader, executor, HIGH, LOW);
        buffer.lease(pool);
        ByteBuf truncated = Unpooled.buffer().writeByte('I').writeInt(REL).writeByte('N').writeShort(2).writeByte('t').writeInt(1000);
        Source source = new Source(pool, buffer, 5, truncated, insert(6));
        buffer.upstream(source);
        buffer.start();
        waitFor("onSubscribe", () -> reader.subscription.get() != null);
        reader.request(100);
        source.start();
        waitFor("the end of the sequence", () -> reader.error.get() != null || reader.completed.get());
        assertEquals(List.of(), wrong);
        assertInstanceOf(ReplicationProtocolException.class, reader.error.get(), "onError with the decoder's finding");
        assertEquals(6, reader.delivered.get(), "the relation and the five rows before it, nothing after");
        assertTrue(source.cancelled.get(), "the source was cancelled");
        return reader;
    }
}
