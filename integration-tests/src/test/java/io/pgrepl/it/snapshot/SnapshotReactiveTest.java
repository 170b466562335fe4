package io.pgrepl.it.snapshot;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.SnapshotProgress;
import io.pgrepl.client.snapshot.SnapshotPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The reactive face: snapshot reads then streamed changes through one publisher, each row event
 * carrying its relation; a slow subscriber pauses the COPY sockets, so the queue stays near the
 * watermark; progress reaches the listener.
 */
@PgTest
@PgServerConfig(version = 18)
class SnapshotReactiveTest {

    @Test
    void readsThenChangesWithRelationsAndBoundedMemory(PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS r_pub; DROP TABLE IF EXISTS r_t;"
                + " CREATE TABLE r_t (id int PRIMARY KEY, v text);"
                + " INSERT INTO r_t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;"
                + " CREATE PUBLICATION r_pub FOR TABLE r_t");
        List<SnapshotProgress> progress = new CopyOnWriteArrayList<>();
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder("r_slot").publications("r_pub")
                .statusInterval(Duration.ofMillis(200)).build();
        SnapshotOptions o = SnapshotOptions.of(stream).withWorkers(2).withUnitPages(64)
                .withSlot(SnapshotOptions.of(stream).slot().withTemporary(true))
                .withProgress(progress::add, Duration.ofMillis(100));
        long[] consistentPoint = new long[1];
        List<ChangeEvent> events = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> error = new AtomicReference<>();
        AtomicReference<Flow.Subscription> sub = new AtomicReference<>();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            SnapshotPublisher p = new SnapshotPublisher(repl, InitialSnapshotMode.INITIAL, o, FlowOptions.defaults().withWatermarks(64, 16));
            p.subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    sub.set(subscription);
                    subscription.request(1);
                }

                @Override
                public void onNext(ChangeEvent e) {
                    events.add(e);
                    if (events.size() < 300) {
                        try {
                            Thread.sleep(2); // slow at first: the sockets must pause
                        } catch (InterruptedException ignored) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    sub.get().request(1);
                }

                @Override
                public void onError(Throwable t) {
                    error.set(t);
                }

                @Override
                public void onComplete() {}
            });
            var result = await(p.snapshot());
            consistentPoint[0] = result.consistentPoint();
            assertEquals(20000, result.rows());
            SnapshotSupport.waitUntil(() -> events.size() >= 20000, Duration.ofSeconds(60), "every read");
            await(sql.simpleQuery("INSERT INTO r_t VALUES (-1, 'new'); UPDATE r_t SET v = 'upd' WHERE id = 1; DELETE FROM r_t WHERE id = 2"));
            SnapshotSupport.waitUntil(() -> {
                synchronized (events) {
                    return events.stream().anyMatch(e -> e.record() instanceof Delete);
                }
            }, Duration.ofSeconds(30), "the delete");
            sub.get().cancel();
            assertNull(error.get());
            assertTrue(p.pauses() > 0, "a slow subscriber paused the COPY sockets");
            // The watermark plus what the two sockets had read when the pause took effect (64 KiB each, ~280 rows).
            assertTrue(p.peakQueued() < 64 + 2 * 400, "queue stayed bounded: " + p.peakQueued());
        }
        List<ChangeEvent> reads = events.stream().filter(ChangeEvent::snapshotRead).toList();
        assertEquals(20000, reads.size());
        int lastRead = events.indexOf(reads.get(reads.size() - 1));
        for (int i = 0; i <= lastRead; i++) assertTrue(events.get(i).snapshotRead(), "reads come before any streamed event");
        ChangeEvent first = reads.get(0);
        assertTrue(first.record() instanceof Insert);
        assertEquals("public", first.schema());
        assertEquals("r_t", first.table());
        assertEquals(List.of("id", "v"), first.relation().columns().stream().map(c -> c.name()).toList());
        assertTrue(first.relation().isKey(0));
        assertEquals(consistentPoint[0], first.walStart(), "a read carries the consistent point");
        for (Class<?> type : List.of(Insert.class, Update.class, Delete.class)) {
            ChangeEvent streamed = events.stream().filter(e -> !e.snapshotRead() && type.isInstance(e.record())).findFirst().orElseThrow();
            assertNotNull(streamed.relation(), "streamed " + type.getSimpleName() + " carries its relation");
            assertEquals("r_t", streamed.table());
        }
        SnapshotProgress last = progress.get(progress.size() - 1);
        assertTrue(last.finished());
        assertEquals(1, last.tablesDone());
        assertEquals(1, last.tablesTotal());
        assertEquals(20000, last.rowsDone());
        assertFalse(progress.isEmpty());
    }
}
