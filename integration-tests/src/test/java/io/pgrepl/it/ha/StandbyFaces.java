package io.pgrepl.it.ha;

import static io.pgrepl.it.ha.HaSupport.await;
import static io.pgrepl.it.ha.HaSupport.scalar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.Begin;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/** The Flow face and the slot monitor against a slot on a hot standby (StandbyDecodingTest's steps). */
final class StandbyFaces {
    private StandbyFaces() {}

    /**
     * Subscribes to the standby slot with {@link ReactiveReplication#changes}, one event requested
     * at a time, and returns the inserted ids of the first {@code transactions} transactions, one list
     * per transaction (from Begin to Commit), acknowledging each commit.
     */
    static List<List<Integer>> flowTransactions(PgServer standby, LogicalReplicationOptions options, int transactions)
            throws Exception {
        List<List<Integer>> seen = new ArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        try (PgConnection c = HaSupport.replication(standby)) {
            ReplicationPublisher<ChangeEvent> p = ReactiveReplication.changes(c, options, FlowOptions.defaults());
            p.subscribe(new Flow.Subscriber<>() {
                private Flow.Subscription subscription;
                private List<Integer> open;

                @Override
                public void onSubscribe(Flow.Subscription s) {
                    subscription = s;
                    s.request(1);
                }

                @Override
                public void onNext(ChangeEvent e) {
                    if (e.record() instanceof Begin) {
                        open = new ArrayList<>();
                    } else if (e.record() instanceof Insert i) {
                        if (open == null) done.completeExceptionally(new AssertionError("an insert outside a transaction"));
                        else open.add(Integer.parseInt(i.newTuple().text(0)));
                    } else if (e.record() instanceof Commit) {
                        seen.add(List.copyOf(open));
                        open = null;
                        e.acknowledge();
                        if (seen.size() == transactions) {
                            subscription.cancel();
                            done.complete(null);
                            return;
                        }
                    }
                    subscription.request(1);
                }

                @Override
                public void onError(Throwable t) {
                    done.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                    done.completeExceptionally(new AssertionError("completed after " + seen.size() + " transactions"));
                }
            });
            await(done);
            await(p.terminated());
        }
        return seen;
    }

    /**
     * On a standby pg_current_wal_lsn() raises: the monitor measures the logical slot from the
     * replay LSN and says it is in recovery; its retained WAL is what the standby's own views give.
     */
    static void monitorReadsTheReplayLsn(PgServer standby, String slot) throws Exception {
        try (SlotMonitor monitor = SlotMonitor.builder(HaSupport.superuser(standby).build()).slot(slot).build()) {
            String replayBefore = scalar(standby, "SELECT pg_last_wal_replay_lsn()");
            String restart = scalar(standby, "SELECT restart_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
            SlotHealth h = await(monitor.pollNow()).get(0);
            String replayAfter = scalar(standby, "SELECT pg_last_wal_replay_lsn()");
            assertEquals(slot, h.slotName());
            assertTrue(h.inRecovery(), "in recovery");
            assertEquals("logical", h.slotType());
            assertEquals("pgoutput", h.plugin());
            assertTrue(Long.compareUnsigned(h.currentLsn(), Lsn.parse(replayBefore)) >= 0
                    && Long.compareUnsigned(h.currentLsn(), Lsn.parse(replayAfter)) <= 0, "replay LSN " + Lsn.format(h.currentLsn()));
            assertEquals(h.currentLsn() - Lsn.parse(restart), h.retainedWal().longValue());
            assertEquals("reserved", h.walStatus(), "the standby keeps the slot's WAL");
        }
    }
}
