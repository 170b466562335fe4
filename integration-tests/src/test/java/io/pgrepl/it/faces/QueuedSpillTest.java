package io.pgrepl.it.faces;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.ReplicationServerErrorException;
import io.pgrepl.client.tx.AssemblerOptions;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/**
 * Spilled transactions still queued for a slow subscriber when the stream ends (the application
 * stops the stream, or the server terminates the walsender) are delivered whole: the stream's end
 * must not delete their spill files. Cancelling drops the queued ones and deletes their files.
 * Against the newest and oldest server of the matrix.
 */
class QueuedSpillTest {
    private static final int TRANSACTIONS = 5;
    private static final int ROWS = 40;

    enum End { STOP, SERVER_TERMINATES, CANCEL }

    @TestFactory
    Stream<DynamicNode> queuedSpilledTransactionsSurviveTheStreamsEnd() {
        List<Integer> m = PgVersions.matrix();
        return Stream.of(m.get(m.size() - 1), m.get(0)).distinct().map(v -> dynamicTest("PG " + v, () -> {
            try (PgServer s = PgServer.builder().version(v).start()) {
                for (End end : End.values()) {
                    try {
                        run(s, end, Files.createTempDirectory("pgrepl-queued-spill"));
                    } catch (AssertionError e) {
                        throw new AssertionError(end + ": " + e.getMessage(), e);
                    }
                }
            }
        }));
    }

    private static void run(PgServer s, End end, Path spill) throws Exception {
        String name = "qspill_" + end.name().toLowerCase();
        FacesSupport.setup(s, name);
        for (int t = 0; t < TRANSACTIONS; t++) {
            int first = t * ROWS + 1;
            s.sql("postgres", "INSERT INTO " + name + " SELECT g, 'row ' || g FROM generate_series(" + first + ", "
                    + (first + ROWS - 1) + ") g");
        }
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<TxEvent> pub = ReactiveReplication.transactions(repl, FacesSupport.options(name).build(),
                    FlowOptions.defaults().withAssembler(AssemblerOptions.defaults().withMemoryBudgetBytes(0)
                            .withSpillDirectory(spill))); // budget 0: every transaction spills
            CountDownLatch streamEnded = new CountDownLatch(1);
            List<List<Integer>> read = new CopyOnWriteArrayList<>();
            List<Throwable> readFailures = new CopyOnWriteArrayList<>();
            List<Boolean> spilled = new CopyOnWriteArrayList<>();
            CollectingSubscriber<TxEvent> sub = new CollectingSubscriber<>(e -> {
                try {
                    // The slow subscriber: holds the first transaction until the stream has ended.
                    if (!streamEnded.await(60, TimeUnit.SECONDS)) throw new AssertionError("stream did not end");
                    Transaction t = (Transaction) e;
                    spilled.add(t.spilled());
                    List<Integer> ids = new ArrayList<>();
                    for (PgOutputRecord r : t.changes()) {
                        if (r instanceof Insert i) ids.add(Integer.parseInt(i.newTuple().get("id").text()));
                    }
                    read.add(ids);
                } catch (Throwable x) {
                    readFailures.add(x);
                } finally {
                    ((Transaction) e).close();
                }
            });
            pub.subscribe(sub);
            waitUntil("the first transaction in onNext, the others queued", Duration.ofSeconds(60),
                    () -> sub.items.size() == 1 && pub.queued() == TRANSACTIONS - 1);
            assertEquals(TRANSACTIONS, count(spill), "one spill file per transaction");
            switch (end) {
                case STOP -> pub.stream().stop();
                case SERVER_TERMINATES -> s.sql("postgres",
                        "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + name + "'");
                case CANCEL -> sub.subscription.cancel();
            }
            await(pub.terminated());
            streamEnded.countDown();
            if (end == End.CANCEL) {
                waitUntil("the subscriber finished the transaction it held", Duration.ofSeconds(60), () -> read.size() == 1);
            } else {
                assertTrue(sub.done.await(60, TimeUnit.SECONDS), "terminal signal");
            }
            assertEquals(List.of(), readFailures, "every delivered transaction was readable");
            int delivered = end == End.CANCEL ? 1 : TRANSACTIONS;
            List<List<Integer>> expected = new ArrayList<>();
            for (int t = 0; t < delivered; t++) {
                List<Integer> ids = new ArrayList<>();
                for (int i = t * ROWS + 1; i <= (t + 1) * ROWS; i++) ids.add(i);
                expected.add(ids);
            }
            assertEquals(expected, read, "whole transactions, in commit order");
            assertEquals(List.of(true), spilled.stream().distinct().toList(), "the spill path was taken");
            if (end == End.SERVER_TERMINATES) {
                assertEquals("57P01", assertInstanceOf(ReplicationServerErrorException.class, sub.error).sqlState());
            } else if (end == End.STOP) {
                assertNull(sub.error);
            }
            waitUntil("no spill file left", Duration.ofSeconds(10), () -> count(spill) == 0);
        }
        dropWhenInactive(s, name);
        Files.delete(spill);
    }

    private static void dropWhenInactive(PgServer s, String slot) throws Exception {
        s.dropReplicationSlot(slot);
    }

    private static long count(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
