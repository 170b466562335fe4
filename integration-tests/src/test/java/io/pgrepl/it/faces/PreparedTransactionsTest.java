package io.pgrepl.it.faces;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.tx.AssemblerOptions;
import io.pgrepl.client.tx.PreparedDelivery;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TwoPhaseOutcome;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import io.pgrepl.testkit.junit.PgServerConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two-phase transactions through the transaction publisher, both delivery modes, from two
 * two_phase slots that saw the same workload: COMMIT PREPARED after another transaction, and a
 * ROLLBACK PREPARED.
 */
@PgServerConfig(settings = {"max_prepared_transactions=10"})
class PreparedTransactionsTest {
    @PgMatrixTest
    void atPrepareAndAtCommitPrepared(PgServer s) throws Exception {
        assumeTrue(s.majorVersion() >= 15, "two-phase decoding in pgoutput needs PostgreSQL 15");
        s.sql("postgres", "DROP TABLE IF EXISTS f2pc; CREATE TABLE f2pc (id int PRIMARY KEY, v text);"
                + " DROP PUBLICATION IF EXISTS f2pc_pub; CREATE PUBLICATION f2pc_pub FOR TABLE f2pc");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('f2pc_p', 'pgoutput', false, true)");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('f2pc_c', 'pgoutput', false, true)");
        s.sql("postgres", "BEGIN; INSERT INTO f2pc VALUES (1, 'prepared'); PREPARE TRANSACTION 'g1'");
        s.sql("postgres", "INSERT INTO f2pc VALUES (2, 'plain')");
        s.sql("postgres", "COMMIT PREPARED 'g1'");
        s.sql("postgres", "BEGIN; INSERT INTO f2pc VALUES (3, 'rolled back'); PREPARE TRANSACTION 'g2'");
        s.sql("postgres", "ROLLBACK PREPARED 'g2'");
        s.sql("postgres", "INSERT INTO f2pc VALUES (4, 'after')");

        assertEquals(List.of("PREPARED g1 [1]", "COMMITTED [2]", "commit-prepared g1 kept=true", "PREPARED g2 [3]",
                "rollback-prepared g2 kept=true", "COMMITTED [4]"), run(s, "f2pc_p", PreparedDelivery.AT_PREPARE));
        assertEquals(List.of("COMMITTED [2]", "COMMIT_PREPARED g1 [1]", "rollback-prepared g2 kept=false", "COMMITTED [4]"),
                run(s, "f2pc_c", PreparedDelivery.AT_COMMIT_PREPARED));
        FacesSupport.dropSlot(s, "f2pc_p");
        FacesSupport.dropSlot(s, "f2pc_c");
    }

    private static List<String> run(PgServer s, String slot, PreparedDelivery mode) throws Exception {
        List<String> seen = new ArrayList<>();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<TxEvent> pub = ReactiveReplication.transactions(repl,
                    io.pgrepl.client.stream.LogicalReplicationOptions.builder(slot).publications("f2pc_pub")
                            .twoPhase(true).build(),
                    FlowOptions.defaults().withAssembler(AssemblerOptions.defaults().withPreparedDelivery(mode)));
            CollectingSubscriber<TxEvent> sub = new CollectingSubscriber<>(e -> {
                if (e instanceof Transaction t) {
                    List<Integer> ids = new ArrayList<>();
                    for (PgOutputRecord r : t.changes()) {
                        if (r instanceof Insert i) ids.add(Integer.parseInt(i.newTuple().get("id").text()));
                    }
                    seen.add(t.kind() + (t.gid() == null ? "" : " " + t.gid()) + " " + ids);
                } else if (e instanceof TwoPhaseOutcome o) {
                    seen.add((o.committed() ? "commit-prepared " : "rollback-prepared ") + o.gid() + " kept=" + o.changesKept());
                }
                e.acknowledge();
            });
            pub.subscribe(sub);
            int expected = mode == PreparedDelivery.AT_PREPARE ? 6 : 4;
            waitUntil(expected + " events", Duration.ofSeconds(60), () -> seen.size() >= expected || sub.error != null);
            assertNull(sub.error);
            sub.subscription.cancel();
            await(pub.terminated());
        }
        return seen;
    }
}
