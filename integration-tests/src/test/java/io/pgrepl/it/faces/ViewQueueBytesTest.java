package io.pgrepl.it.faces;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The views publisher's default bound in bytes: rows of 64 KiB, far fewer than the high watermark
 * (1024) but together over {@link ReactiveReplication#VIEW_QUEUE_BYTES}, wait for a subscriber with
 * no demand. Socket reading pauses once the queued copies pass the byte bound, so the queue never
 * holds more than the bound plus what one read brought past it; the count bound alone would have
 * queued every row. Then the subscriber asks for one row at a time and never gets more than it
 * asked for (§1.1).
 */
@PgTest
class ViewQueueBytesTest {
    private static final int ROWS = 200;
    private static final int WIDTH = 65_536;
    /** A read's worth past the bound: a row framed across reads and the read that brought it. */
    private static final long SLACK = 4L * WIDTH;

    @Test
    void wideRowsPauseReadingAtTheByteBoundAndOneAtATimeDemandIsExact(PgServer s) throws Exception {
        FacesSupport.setup(s, "fviewbytes");
        s.sql("postgres", "INSERT INTO fviewbytes SELECT g, repeat(chr(97 + g % 26), " + WIDTH + ") FROM generate_series(1, " + ROWS + ") g");
        AtomicLong requested = new AtomicLong();
        AtomicLong received = new AtomicLong();
        AtomicInteger inserts = new AtomicInteger();
        AtomicInteger overDemand = new AtomicInteger();
        AtomicInteger wrongWidth = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        Flow.Subscription[] subscription = new Flow.Subscription[1];
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeView> pub = ReactiveReplication.views(repl, FacesSupport.options("fviewbytes").build(),
                    FlowOptions.defaults());
            pub.subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription sub) {
                    subscription[0] = sub; // no demand yet: everything the stream reads waits in the queue
                }

                @Override
                public void onNext(ChangeView v) {
                    if (received.incrementAndGet() > requested.get()) overDemand.incrementAndGet();
                    if (v.message() instanceof InsertMessage i) {
                        inserts.incrementAndGet();
                        if (i.newTuple().valueLength(1) != WIDTH) wrongWidth.incrementAndGet();
                    }
                    v.acknowledge();
                    requested.incrementAndGet();
                    subscription[0].request(1);
                }

                @Override
                public void onError(Throwable t) {
                    errors.incrementAndGet();
                }

                @Override
                public void onComplete() {}
            });
            waitUntil("socket reading paused at the byte bound", Duration.ofSeconds(60), () -> pub.pauses() >= 1 || errors.get() > 0);
            assertEquals(0, received.get(), "nothing delivered without demand");
            long peakBytes = pub.peakQueuedWeight();
            assertTrue(peakBytes > ReactiveReplication.VIEW_QUEUE_BYTES / 2, "the wide rows' copies are counted, peak " + peakBytes);
            requested.set(1);
            subscription[0].request(1);
            waitUntil("every row", Duration.ofSeconds(120), () -> inserts.get() == ROWS || errors.get() > 0);
            assertEquals(0, errors.get());
            assertEquals(ROWS, inserts.get());
            assertEquals(0, wrongWidth.get(), "every value arrived whole");
            assertEquals(0, overDemand.get(), "§1.1: never more than requested");
            assertTrue(pub.peakQueuedWeight() <= ReactiveReplication.VIEW_QUEUE_BYTES + SLACK,
                    "queued copies bounded by the byte bound plus one read, peak " + pub.peakQueuedWeight());
            long rowsInBound = ReactiveReplication.VIEW_QUEUE_BYTES / WIDTH;
            assertTrue(pub.peakQueued() <= rowsInBound + SLACK / WIDTH + 4,
                    "far from every row queued at once, peak " + pub.peakQueued() + " of " + ROWS);
            subscription[0].cancel();
            await(pub.terminated());
        }
        FacesSupport.dropSlot(s, "fviewbytes");
    }
}
