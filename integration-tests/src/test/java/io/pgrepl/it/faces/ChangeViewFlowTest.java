package io.pgrepl.it.faces;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The Flow face's recycled views ({@link ReactiveReplication#views}) on a real walsender: a
 * one-at-a-time subscriber reads every row of a backlog in order through the handler face's views
 * (values, relation, update and delete), on its own thread; a few views carry the whole backlog (they
 * are reused once onNext returned); a large value passes through and is not kept; {@code toEvent()}
 * is a copy that outlives the view; acknowledging a commit view confirms it on the slot.
 */
@PgTest
class ChangeViewFlowTest {
    private static final int ROWS = 6_000;
    private static final int BIG = 100_000;

    @Test
    void oneAtATimeSubscriberReadsEveryRowThroughRecycledViews(PgServer s) throws Exception {
        FacesSupport.setup(s, "cview");
        for (int tx = 0; tx < 3; tx++) {
            int from = tx * (ROWS / 3) + 1;
            s.sql("postgres", "INSERT INTO cview SELECT g, 'v' || g FROM generate_series(" + from + ", " + (from + ROWS / 3 - 1) + ") g");
        }
        s.sql("postgres", "UPDATE cview SET v = repeat('x', " + BIG + ") WHERE id = 7; DELETE FROM cview WHERE id = 8");
        s.sql("postgres", "SELECT pg_logical_emit_message(false, 'end', 'x')");
        Set<ChangeView> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        AtomicReference<String> wrong = new AtomicReference<>();
        AtomicReference<ChangeEvent> firstRowCopy = new AtomicReference<>();
        AtomicReference<ChangeView> heldPastOnNext = new AtomicReference<>();
        long[] lastCommitEnd = new long[1];
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<ChangeView> p = ReactiveReplication.views(repl, FacesSupport.options("cview").messages(true).build(),
                    FlowOptions.defaults().withWatermarks(64, 16));
            CompletableFuture<int[]> done = new CompletableFuture<>();
            p.subscribe(new Flow.Subscriber<ChangeView>() {
                Flow.Subscription subscription;
                int next = 1;
                int changes;
                int commits;
                int relations;
                boolean updated;
                boolean deleted;

                private void check(boolean ok, String what) {
                    if (!ok && wrong.get() == null) {
                        wrong.set(what + " at change " + changes);
                        done.completeExceptionally(new AssertionError(wrong.get()));
                    }
                }

                @Override
                public void onSubscribe(Flow.Subscription sub) {
                    subscription = sub;
                    sub.request(1);
                }

                @Override
                public void onNext(ChangeView v) {
                    changes++;
                    distinct.add(v);
                    if (v.message() instanceof InsertMessage m) {
                        TupleView t = m.newTuple();
                        check(t.int4(0) == next, "row " + t.int4(0) + ", expected " + next);
                        check(("v" + next).equals(t.text(1)), "value " + t.text(1) + " of row " + next);
                        check("cview".equals(v.table()) && "public".equals(v.schema()), "relation " + v.relation());
                        if (next == 1) {
                            firstRowCopy.set(v.toEvent());
                            heldPastOnNext.set(v); // against the contract, to check it is refused
                        }
                        next++;
                    } else if (v.message() instanceof UpdateMessage m) {
                        TupleView t = m.newTuple();
                        check(t.int4(0) == 7 && t.valueLength(1) == BIG && t.buffer().getByte(t.valueIndex(1)) == 'x', "the update");
                        updated = true;
                    } else if (v.message() instanceof DeleteMessage m) {
                        check(m.oldTuple().int4(0) == 8 && "cview".equals(v.table()), "the delete");
                        deleted = true;
                    } else if (v.message() instanceof RelationMessage) {
                        check("cview".equals(v.table()), "relation message " + v.relation());
                        relations++;
                    } else if (v.message() instanceof CommitMessage c) {
                        commits++;
                        lastCommitEnd[0] = c.endLsn();
                        check(v.ackLsn() == c.endLsn(), "ackLsn " + v.ackLsn());
                        v.acknowledge();
                    } else if (v.ackLsn() != 0) { // the non-transactional message ends the backlog
                        check(next == ROWS + 1 && updated && deleted && commits == 4, "end: next " + next + ", commits " + commits);
                        done.complete(new int[] {changes, relations});
                        subscription.cancel();
                        return;
                    }
                    subscription.request(1);
                }

                @Override
                public void onError(Throwable t) {
                    done.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                    done.completeExceptionally(new AssertionError("completed before the end message"));
                }
            });
            int[] seen = await(done);
            await(p.terminated());
            assertNull(wrong.get());
            assertTrue(seen[1] >= 1, "a Relation message was delivered");
            // High watermark 64 plus one socket read: a few hundred views for ~6,000 messages.
            assertTrue(distinct.size() < seen[0] / 4, distinct.size() + " views for " + seen[0] + " messages");
        }
        assertThrows(IllegalStateException.class, () -> heldPastOnNext.get().message(), "a view read after its onNext");
        Insert copy = assertInstanceOf(Insert.class, firstRowCopy.get().record());
        assertEquals("1", copy.newTuple().get("id").text(), "the copy outlives its view");
        assertEquals("cview", firstRowCopy.get().table());
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            FacesSupport.waitUntil("the last commit confirmed", Duration.ofSeconds(30), () -> {
                try {
                    String c = await(sql.query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'cview'"))
                            .singleRow().get(0);
                    return c != null && Long.compareUnsigned(Lsn.parse(c), lastCommitEnd[0]) >= 0;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        FacesSupport.dropSlot(s, "cview");
    }
}
