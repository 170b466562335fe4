package io.pgrepl.it.faces;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.client.tx.AssemblerOptions;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One streamed transaction (logical_decoding_work_mem = 64kB for the walsender) far larger than a 256 KiB
 * assembler budget, with a rolled-back savepoint in the middle: assembled through the spill
 * path, delivered once, in order, without the rolled-back rows, and the spill file removed on
 * acknowledge.
 */
class LargeTransactionTest {
    @TempDir
    Path spill;

    @PgMatrixTest
    void streamedTransactionBeyondTheBudgetSpillsAndArrivesOnce(PgServer s) throws Exception {
        assumeTrue(s.majorVersion() >= 14, "streaming of in-progress transactions needs PostgreSQL 14");
        FacesSupport.setup(s, "fbig");
        s.sql("postgres", "BEGIN;"
                + " INSERT INTO fbig SELECT g, repeat('a', 100) FROM generate_series(1, 10000) g;"
                + " SAVEPOINT s1;"
                + " INSERT INTO fbig SELECT g, 'rolled back' FROM generate_series(100001, 105000) g;"
                + " ROLLBACK TO SAVEPOINT s1;"
                + " INSERT INTO fbig SELECT g, repeat('b', 100) FROM generate_series(10001, 20000) g;"
                + " COMMIT");
        s.sql("postgres", "INSERT INTO fbig VALUES (0, 'after')");
        long budget = 256 * 1024;
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            // For this walsender only (a server-wide setting would break the 10-13 servers' configs).
            await(repl.simpleQuery("SET logical_decoding_work_mem = '64kB'"));
            ReplicationPublisher<TxEvent> pub = ReactiveReplication.transactions(repl,
                    FacesSupport.options("fbig").streaming(StreamingMode.ON).build(),
                    FlowOptions.defaults().withAssembler(AssemblerOptions.defaults().withMemoryBudgetBytes(budget)
                            .withSpillDirectory(spill)));
            List<String> seen = new ArrayList<>();
            List<Integer> bigIds = new ArrayList<>();
            long[] spillFilesWhileOpen = {-1};
            CollectingSubscriber<TxEvent> sub = new CollectingSubscriber<>(e -> {
                Transaction t = (Transaction) e;
                List<Integer> ids = new ArrayList<>();
                for (PgOutputRecord r : t.changes()) {
                    if (r instanceof Insert i) ids.add(Integer.parseInt(i.newTuple().get("id").text()));
                }
                seen.add((t.streamed() ? "streamed" : "plain") + "/" + (t.spilled() ? "spilled" : "memory") + "/" + ids.size());
                if (ids.size() > 1) {
                    bigIds.addAll(ids);
                    spillFilesWhileOpen[0] = count(spill);
                }
                e.acknowledge();
            });
            pub.subscribe(sub);
            waitUntil("two transactions", Duration.ofSeconds(120), () -> sub.items.size() >= 2 || sub.error != null);
            assertNull(sub.error);
            Thread.sleep(500); // nothing else may follow: exactly once
            sub.subscription.cancel();
            await(pub.terminated());
            assertEquals(List.of("streamed/spilled/20000", "plain/memory/1"), seen);
            List<Integer> expected = new ArrayList<>();
            for (int i = 1; i <= 20000; i++) expected.add(i);
            assertEquals(expected, bigIds, "in order, no rolled-back subtransaction rows, no duplicates");
            assertEquals(1, spillFilesWhileOpen[0]);
            assertEquals(0, count(spill), "spill file deleted on acknowledge");
        }
        FacesSupport.dropSlot(s, "fbig");
    }

    private static long count(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
