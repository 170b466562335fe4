package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The task driven directly (no worker) against a real PostgreSQL 18, starting from the offsets a
 * crash or a stop would have left: how long stop() takes, what start() does with offsets and a
 * slot that disagree.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskLifecycleTest {
    private PgServer pg;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
    }

    @AfterAll
    void stop() {
        if (pg != null) pg.close();
    }

    private Map<String, String> config(String p, String mode) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.put("snapshot.mode", mode);
        c.put("max.batch.size", "500");
        return c;
    }

    private static PgreplSourceTask task(Map<String, String> cfg, Map<String, Object> offset) {
        InMemoryTaskContext ctx = new InMemoryTaskContext(cfg);
        if (offset != null) ctx.offset(Map.of("server", cfg.get("topic.prefix")), offset);
        PgreplSourceTask t = new PgreplSourceTask();
        t.initialize(ctx);
        t.start(cfg);
        return t;
    }

    /** What the polls so far returned, counted as they arrive (a predicate over the whole list per poll is quadratic). */
    private static final class Polled {
        final List<SourceRecord> all = new ArrayList<>();
        long reads;
        long deletes;

        void add(List<SourceRecord> batch) {
            all.addAll(batch);
            reads += reads(batch);
            deletes += batch.stream().filter(r -> r.value() instanceof Struct s && "d".equals(s.getString("op"))).count();
        }
    }

    private static List<SourceRecord> pollUntil(PgreplSourceTask t, Predicate<Polled> done) throws Exception {
        Polled polled = new Polled();
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (!done.test(polled)) {
            assertTrue(System.nanoTime() < end, "timed out after " + polled.all.size() + " records");
            List<SourceRecord> r = t.poll();
            if (r == null) continue;
            polled.add(r);
            for (SourceRecord x : r) t.commitRecord(x, null); // as Connect does once Kafka has it (max.unacknowledged.records)
        }
        return polled.all;
    }

    private static long reads(List<SourceRecord> rs) {
        return rs.stream().filter(r -> r.value() instanceof Struct s && "r".equals(s.getString("op"))).count();
    }

    private Row slot(String name) throws Exception {
        return slot(pg, name);
    }

    private static Row slot(PgServer pg, String name) throws Exception {
        List<Row> r = EndToEndTest.query(pg, "SELECT active::text, (confirmed_flush_lsn)::text FROM pg_replication_slots"
                + " WHERE slot_name = '" + name + "'");
        return r.isEmpty() ? null : r.get(0);
    }

    private Row awaitSlotIdle(String name) throws Exception {
        return awaitSlotIdle(pg, name);
    }

    private static Row awaitSlotIdle(PgServer pg, String name) throws Exception {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < end) {
            Row r = slot(pg, name);
            if (r == null || "false".equals(r.get(0))) return r;
            Thread.sleep(50);
        }
        throw new AssertionError("slot " + name + " stayed active");
    }

    /** Stops the task, timing stop() as Connect's herder would call it. */
    private static long timedStop(PgreplSourceTask t) {
        long t0 = System.nanoTime();
        t.stop();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /**
     * stop() while a transaction far larger than what the client buffers streams: the walsender is
     * blocked sending, and a graceful end of the stream would wait for it to read our CopyDone.
     */
    @Test
    void stopReturnsAtOnceWhileAHugeTransactionStreams() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE tlh_rows (id int PRIMARY KEY, pad text)");
        PgreplSourceTask t = task(config("tlh", "never"), null);
        EndToEndTest.awaitSlotActive(pg, "tlh_slot");
        EndToEndTest.sql(pg, "INSERT INTO tlh_rows SELECT g, repeat('x', 300) FROM generate_series(1, 200000) g");
        List<SourceRecord> got = pollUntil(t, p -> p.all.size() >= 1000);
        long ms = timedStop(t);
        assertTrue(ms < 1000, "stop() took " + ms + " ms");
        assertTrue(got.size() < 200_000, "stopped mid-transaction");
        awaitSlotIdle("tlh_slot");
    }

    /**
     * stop() during the copy returns at once and keeps the slot; the next start copies again
     * beside it and its reads carry the first copy's consistent point, where streaming resumes.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void stopDuringTheCopyKeepsTheSlotAndTheNextCopyStreamsFromTheFirstPoint(int major) throws Exception {
        PgServer pg = major == 18 ? this.pg : PgServer.start(PgServer.builder().version(major).build());
        try {
            copyInterruptedByStop(pg);
        } finally {
            if (pg != this.pg) pg.close();
        }
    }

    private void copyInterruptedByStop(PgServer pg) throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE tlc_rows (id int PRIMARY KEY, pad text);"
                + "INSERT INTO tlc_rows SELECT g, repeat('y', 200) FROM generate_series(1, 100000) g");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "tlc");
        cfg.put("snapshot.mode", "initial");
        cfg.put("max.batch.size", "500");
        PgreplSourceTask t = task(cfg, null);
        List<SourceRecord> first = pollUntil(t, p -> p.all.size() >= 1000);
        long ms = timedStop(t);
        assertTrue(ms < 1000, "stop() during the copy took " + ms + " ms");
        Row kept = awaitSlotIdle(pg, "tlc_slot");
        assertTrue(kept != null, "the slot survived the interrupted copy");
        Map<String, ?> interrupted = first.get(first.size() - 1).sourceOffset();
        long c1 = ((Number) interrupted.get(Position.SNAPSHOT_LSN)).longValue();
        assertEquals(Lsn.format(c1), kept.get(1), "the slot is still at the first copy's consistent point");

        EndToEndTest.sql(pg, "DELETE FROM tlc_rows WHERE id <= 10"); // read by the first copy, deleted before the second
        @SuppressWarnings("unchecked")
        PgreplSourceTask again = task(cfg, (Map<String, Object>) interrupted);
        List<SourceRecord> second = pollUntil(again, p -> p.reads >= 99_990 && p.deletes > 0);
        again.stop();
        assertEquals(99_990, reads(second), "the second copy read every row once");
        assertTrue(second.stream().filter(r -> reads(List.of(r)) == 1)
                .allMatch(r -> readPoint(r) == c1), "every read carries the first point");
        long deletes = second.stream().filter(r -> r.value() instanceof Struct s && "d".equals(s.getString("op"))).count();
        assertEquals(10, deletes, "the deletes between the copies were streamed after the second copy");
    }

    /** A connect that completes after the wait gave up is closed, not leaked. */
    @Test
    void aConnectionArrivingAfterTheTimeoutIsClosed() throws Exception {
        PgreplConnectorConfig cfg = new PgreplConnectorConfig(config("tla", "never"));
        CompletableFuture<PgConnection> raw = new CompletableFuture<>();
        assertThrows(ConnectException.class,
                () -> ReplicationSetup.await(raw.minimalCompletionStage(), cfg, "connecting", Duration.ofMillis(100)));
        PgConnection late = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture().get(30, TimeUnit.SECONDS);
        raw.complete(late);
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (late.isOpen() && System.nanoTime() < end) Thread.sleep(20);
        assertFalse(late.isOpen(), "the late connection was closed");

        // Interrupted instead of timed out: the same.
        CompletableFuture<PgConnection> raw2 = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        assertThrows(ConnectException.class,
                () -> ReplicationSetup.await(raw2.minimalCompletionStage(), cfg, "connecting", Duration.ofSeconds(10)));
        assertTrue(Thread.interrupted(), "the interrupt is kept");
        PgConnection late2 = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture().get(30, TimeUnit.SECONDS);
        raw2.complete(late2);
        end = System.nanoTime() + Waits.CEILING.toNanos();
        while (late2.isOpen() && System.nanoTime() < end) Thread.sleep(20);
        assertFalse(late2.isOpen(), "the late connection was closed after an interrupt");
    }

    /** A slot re-created past the stored offsets, or gone: start fails and says why, unless told to snapshot. */
    @Test
    void offsetsTheSlotCannotServeFailUnlessToldToSnapshot() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE tll_rows (id int PRIMARY KEY, v int);"
                + "INSERT INTO tll_rows SELECT g, g FROM generate_series(1, 20) g");
        long old = recreatedSlot("tll_slot");
        Map<String, String> cfg = config("tll", "initial");
        Map<String, Object> stored = Position.offset(old, 0);
        ConnectException e = assertThrows(ConnectException.class, () -> task(cfg, stored));
        assertTrue(e.getMessage().contains("confirmed up to") && e.getMessage().contains("slot.lost.handling"), e.getMessage());

        pg.dropReplicationSlot("tll_slot");
        e = assertThrows(ConnectException.class, () -> task(cfg, stored));
        assertTrue(e.getMessage().contains("does not exist") && e.getMessage().contains("slot.lost.handling"), e.getMessage());
        assertTrue(slot("tll_slot") == null, "no slot was created silently");

        cfg.put("slot.lost.handling", "snapshot");
        PgreplSourceTask t = task(cfg, stored);
        List<SourceRecord> got = pollUntil(t, p -> p.reads == 20);
        t.stop();
        assertEquals(20, reads(got));
    }

    /**
     * when_needed whose re-snapshot died before its first offset was flushed: the stored offset is
     * the old slot's, the slot is the new one (confirmed past it). The restart must copy again.
     */
    @Test
    void whenNeededCopiesAgainWhenTheSlotIsNewerThanTheOffsets() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE tlw_rows (id int PRIMARY KEY, v int);"
                + "INSERT INTO tlw_rows SELECT g, g FROM generate_series(1, 30) g");
        long old = recreatedSlot("tlw_slot");
        PgreplSourceTask t = task(config("tlw", "when_needed"), Position.offset(old, 0));
        List<SourceRecord> got = pollUntil(t, p -> p.reads == 30);
        t.stop();
        assertEquals(30, reads(got), "the copy was taken again");
        assertTrue(slot("tlw_slot") != null, "the slot was kept");
    }

    private static long readPoint(SourceRecord r) {
        Object p = r.sourceOffset().get(Position.SNAPSHOT_LSN);
        return ((Number) (p != null ? p : r.sourceOffset().get(Position.TX_END))).longValue();
    }

    /** Creates {@code name}, writes, drops and creates it again; returns the first one's confirmed position. */
    private long recreatedSlot(String name) throws Exception {
        List<Row> r = EndToEndTest.query(pg, "SELECT lsn::text FROM pg_create_logical_replication_slot('" + name
                + "', 'pgoutput')");
        long first = Lsn.parse(r.get(0).get(0));
        EndToEndTest.sql(pg, "CREATE TABLE IF NOT EXISTS tl_noise (v int); INSERT INTO tl_noise SELECT generate_series(1, 100)");
        pg.dropReplicationSlot(name);
        EndToEndTest.sql(pg, "SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput')");
        return first;
    }
}
