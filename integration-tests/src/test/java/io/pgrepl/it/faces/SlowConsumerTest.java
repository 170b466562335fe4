package io.pgrepl.it.faces;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.it.fault.FaultMajors;
import io.pgrepl.testkit.PgServer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A subscriber that takes 10 s per event, with wal_sender_timeout = 2 s: demand pauses socket
 * reading, keepalives are still answered, so the walsender never times out, and the queue stays
 * at the high watermark plus one socket read (64 KiB). Flow control and keepalives are the same on
 * every major, so newest and oldest: the whole matrix spent 20 s of sleeping per major for no new
 * evidence.
 */
class SlowConsumerTest {
    private static final FaultMajors MAJORS = new FaultMajors(Map.of("wal_sender_timeout", "2s"));
    private static final int ROWS = 20_000;
    /**
     * Pausing happens inline on the event loop, so Netty stops its read loop after the current
     * read: at most one receive buffer (64 KiB, ~64 messages of ~1 KiB) beyond the watermark
     * (measured peak 70).
     */
    private static final int READ_SLACK = 100;
    private static final int HIGH = 8;

    static Stream<Integer> majors() {
        return FaultMajors.newestAndOldest();
    }

    @AfterAll
    static void stopServers() {
        MAJORS.close();
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void slowSubscriberPausesTheSocketNotTheKeepalives(int major) throws Exception {
        PgServer s = MAJORS.server(major);
        FacesSupport.setup(s, "fslow");
        // ~1 KiB per row: one socket read can hold only a few dozen messages
        s.sql("postgres", "INSERT INTO fslow SELECT g, repeat('x', 1000) FROM generate_series(1, " + ROWS + ") g");
        AtomicInteger inserts = new AtomicInteger();
        AtomicInteger slowLeft = new AtomicInteger(2);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeEvent> pub = ReactiveReplication.changes(repl, FacesSupport.options("fslow").build(),
                    FlowOptions.defaults().withWatermarks(HIGH, 2));
            CollectingSubscriber<ChangeEvent> sub = new CollectingSubscriber<>(e -> {
                if (e.record() instanceof Insert) inserts.incrementAndGet();
                if (slowLeft.getAndDecrement() > 0) sleep(10_000);
                e.acknowledge();
            });
            pub.subscribe(sub);
            waitUntil("two slow events", Duration.ofSeconds(60), () -> slowLeft.get() <= 0);
            // 20 s at 10 s per event: ten wal_sender_timeouts, and the stream is still up
            assertFalse(pub.stream().completion().toCompletableFuture().isDone(), "walsender did not time out");
            assertNull(sub.error);
            assertTrue(pub.pauses() >= 1, "socket reading was paused");
            int peak = pub.peakQueued();
            assertTrue(peak < ROWS / 5, "far from everything queued, peak " + peak);
            assertTrue(peak <= HIGH + READ_SLACK, "queue bounded by watermark + one read, peak " + peak);
            waitUntil("all rows", Duration.ofSeconds(60), () -> inserts.get() == ROWS || sub.error != null);
            assertNull(sub.error);
            assertEquals(ROWS, inserts.get());
            sub.subscription.cancel();
            await(pub.terminated());
            assertTrue(pub.peakQueued() <= HIGH + READ_SLACK, "peak " + pub.peakQueued());
            System.out.printf("slow consumer: peak queued %d (high watermark %d), pauses %d%n", pub.peakQueued(), HIGH,
                    pub.pauses());
        }
        FacesSupport.dropSlot(s, "fslow");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
