package io.pgrepl.it.faces;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Auto-acknowledged views confirm on the slot only what the subscriber's onNext returned from: a
 * subscriber that reads the first transaction's rows and commit, then throws from the second
 * transaction's commit, leaves {@code confirmed_flush_lsn} at the first transaction's end, below
 * the position the server reported between the two commits, and gets nothing after the throw.
 */
@PgTest
class ChangeViewAckTest {
    private static final int ROWS = 500;

    private static long walInsertLsn(PgConnection sql) throws Exception {
        return Lsn.parse(await(sql.query("SELECT pg_current_wal_insert_lsn()")).singleRow().get(0));
    }

    @Test
    void theSlotIsConfirmedOnlyForWhatOnNextReturnedFrom(PgServer s) throws Exception {
        FacesSupport.setup(s, "cvack");
        long beforeFirst;
        long betweenCommits;
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            beforeFirst = walInsertLsn(sql);
            await(sql.query("INSERT INTO cvack SELECT g, 'v' || g FROM generate_series(1, " + ROWS + ") g"));
            betweenCommits = walInsertLsn(sql);
        }
        s.sql("postgres", "INSERT INTO cvack SELECT g, 'v' || g FROM generate_series(" + (ROWS + 1) + ", " + (2 * ROWS) + ") g");
        s.sql("postgres", "INSERT INTO cvack SELECT g, 'v' || g FROM generate_series(" + (2 * ROWS + 1) + ", " + (3 * ROWS) + ") g");
        AtomicInteger rows = new AtomicInteger();
        AtomicInteger commits = new AtomicInteger();
        AtomicInteger afterThrow = new AtomicInteger();
        AtomicReference<String> wrong = new AtomicReference<>();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeView> p = ReactiveReplication.views(repl,
                    FacesSupport.options("cvack").confirmIdleKeepalives(false).build(),
                    FlowOptions.defaults().withWatermarks(64, 16).withAutoAcknowledge(true));
            p.subscribe(new Flow.Subscriber<ChangeView>() {
                Flow.Subscription subscription;
                boolean threw;

                @Override
                public void onSubscribe(Flow.Subscription sub) {
                    subscription = sub;
                    sub.request(1);
                }

                @Override
                public void onNext(ChangeView v) {
                    if (threw) afterThrow.incrementAndGet();
                    if (v.message() instanceof InsertMessage m) {
                        int id = m.newTuple().int4(0);
                        if (id != rows.incrementAndGet() && wrong.get() == null) wrong.set("row " + id + " at " + rows.get());
                    } else if (v.message() instanceof CommitMessage && commits.incrementAndGet() == 2) {
                        threw = true;
                        throw new IllegalStateException("the application fails on the second transaction's commit");
                    }
                    subscription.request(1);
                }

                @Override
                public void onError(Throwable t) {
                    wrong.compareAndSet(null, "onError after a throwing onNext (§2.13: cancel only): " + t);
                }

                @Override
                public void onComplete() {
                    wrong.compareAndSet(null, "onComplete after a throwing onNext");
                }
            });
            await(p.terminated());
        }
        assertNull(wrong.get());
        assertEquals(2, commits.get(), "onNext ran for both commits");
        assertEquals(2 * ROWS, rows.get(), "every row of the first two transactions");
        assertEquals(0, afterThrow.get(), "nothing delivered after the throw");
        long[] confirmed = new long[1];
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            FacesSupport.waitUntil("the first transaction confirmed", Duration.ofSeconds(30), () -> {
                try {
                    String c = await(sql.query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'cvack'"))
                            .singleRow().get(0);
                    confirmed[0] = Lsn.parse(c);
                    return Long.compareUnsigned(confirmed[0], beforeFirst) > 0;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        assertTrue(Long.compareUnsigned(confirmed[0], betweenCommits) <= 0, "confirmed " + Lsn.format(confirmed[0])
                + " is past the first transaction's end (at or before " + Lsn.format(betweenCommits) + ")");
        FacesSupport.dropSlot(s, "cvack");
    }
}
