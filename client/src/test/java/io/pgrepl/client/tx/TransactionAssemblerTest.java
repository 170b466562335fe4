package io.pgrepl.client.tx;

import io.pgrepl.codec.pgoutput.record.Begin;
import io.pgrepl.codec.pgoutput.record.BeginPrepare;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.CommitPrepared;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.Origin;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Prepare;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.RollbackPrepared;
import io.pgrepl.codec.pgoutput.record.StreamAbort;
import io.pgrepl.codec.pgoutput.record.StreamCommit;
import io.pgrepl.codec.pgoutput.record.StreamPrepare;
import io.pgrepl.codec.pgoutput.record.StreamStart;
import io.pgrepl.codec.pgoutput.record.StreamStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import static io.pgrepl.client.tx.Recs.id;
import static io.pgrepl.client.tx.Recs.insert;
import static io.pgrepl.client.tx.Recs.relation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransactionAssemblerTest {
    @TempDir
    Path spillDir;

    private final List<TxEvent> events = new ArrayList<>();
    private final List<Long> acks = new ArrayList<>();

    private TransactionAssembler assembler(PreparedDelivery pd, long budget) {
        return new TransactionAssembler(AssemblerOptions.defaults().withPreparedDelivery(pd)
                .withMemoryBudgetBytes(budget).withSpillDirectory(spillDir), acks::add, events::add);
    }

    private TransactionAssembler assembler() {
        return assembler(PreparedDelivery.AT_PREPARE, 1 << 20);
    }

    private static void feed(TransactionAssembler a, PgOutputRecord... rs) {
        for (PgOutputRecord r : rs) a.accept(r);
    }

    private static List<Integer> ids(Transaction t) {
        return StreamSupport.stream(t.changes().spliterator(), false)
                .filter(r -> r instanceof Insert).map(Recs::id).collect(Collectors.toList());
    }

    private long spillFiles() throws Exception {
        try (Stream<Path> s = Files.list(spillDir)) {
            return s.count();
        }
    }

    @Test
    void plainTransactionDeliveredAtCommitAndAcknowledgedOnlyExplicitly() {
        var a = assembler();
        feed(a, new Begin(0x100, 5, 700), new Origin(0x90, "node1"), relation(0), insert(0, 1, "a"), insert(0, 2, null));
        assertTrue(events.isEmpty());
        assertTrue(a.inTransaction());
        a.accept(new Commit(0, 0x100, 0x130, 6));
        Transaction t = assertInstanceOf(Transaction.class, events.get(0));
        assertEquals(Transaction.Kind.COMMITTED, t.kind());
        assertEquals(700, t.xid());
        assertEquals(0x130, t.endLsn());
        assertEquals(0x100, t.commitLsn());
        assertEquals("node1", t.origin());
        assertEquals(List.of(1, 2), ids(t));
        assertEquals(4, t.size());
        assertEquals("t", t.relation(Recs.REL).name());
        assertTrue(acks.isEmpty(), "never acknowledged implicitly");
        t.acknowledge();
        assertEquals(List.of(0x130L), acks);
        assertFalse(a.inTransaction());
    }

    @Test
    void newConnectionDropsPartialTransactionsAndSkipsWhatWasAcknowledged() throws Exception {
        var a = assembler(PreparedDelivery.AT_PREPARE, 0); // everything spills: files must go too
        // first connection: stream 10 committed and acknowledged; stream 20 and a plain txn cut off
        feed(a, new StreamStart(10, 1), relation(10), insert(10, 1, "x"), new StreamStop(),
                new StreamCommit(10, 0, 0x400, 0x410, 3),
                new StreamStart(20, 1), insert(20, 100, "y"), new StreamStop(),
                new Begin(0x500, 1, 30), insert(0, 500, "p"));
        assertEquals(1, events.size());
        ((Transaction) events.get(0)).acknowledge();
        ((Transaction) events.get(0)).close();
        a.onNewConnection(0x410);
        assertEquals(0, a.openTransactions());
        assertEquals(0, spillFiles(), "partial transactions' spill files deleted");
        // the server resends from its confirmed position, which may be older than 0x410
        feed(a, new StreamStart(10, 1), relation(10), insert(10, 1, "x"), new StreamStop(),
                new StreamStart(20, 1), insert(20, 100, "y"), new StreamStop(),
                new StreamCommit(10, 0, 0x400, 0x410, 3),
                new Begin(0x500, 1, 30), insert(0, 500, "p"), new Commit(0, 0x500, 0x510, 4),
                new StreamStart(20, 0), insert(20, 101, "y"), new StreamStop(),
                new StreamCommit(20, 0, 0x600, 0x610, 5));
        assertEquals(3, events.size(), "stream 10 not delivered twice");
        assertEquals(List.of(500), ids((Transaction) events.get(1)));
        assertEquals(List.of(100, 101), ids((Transaction) events.get(2)), "stream 20 assembled once, from its first block");
    }

    @Test
    void interleavedStreamsDeliveredInCommitOrder() {
        var a = assembler();
        feed(a, new StreamStart(10, 1), relation(10), insert(10, 1, "x"), new StreamStop(),
                new StreamStart(20, 1), insert(20, 100, "y"), new StreamStop(),
                new Begin(0x200, 1, 30), insert(0, 500, "p"), new Commit(0, 0x200, 0x210, 1),
                new StreamStart(10, 0), insert(10, 2, "x"), new StreamStop(),
                new StreamStart(20, 0), insert(20, 101, "y"), new StreamStop(),
                new StreamCommit(20, 0, 0x300, 0x310, 2),
                new StreamStart(10, 0), insert(10, 3, "x"), new StreamStop(),
                new StreamCommit(10, 0, 0x400, 0x410, 3));
        assertEquals(3, events.size());
        Transaction t30 = (Transaction) events.get(0), t20 = (Transaction) events.get(1), t10 = (Transaction) events.get(2);
        assertEquals(List.of(500), ids(t30));
        assertFalse(t30.streamed());
        assertEquals(20, t20.xid());
        assertEquals(List.of(100, 101), ids(t20));
        assertTrue(t20.streamed());
        assertEquals(List.of(1, 2, 3), ids(t10));
        assertEquals(0x410, t10.endLsn());
        assertEquals(0, a.openTransactions());
    }

    @Test
    void streamAbortOfTopLevelDiscardsEverything() throws Exception {
        var a = assembler(PreparedDelivery.AT_PREPARE, 0); // budget 0: everything spills
        feed(a, new StreamStart(10, 1), insert(10, 1, "x"), insert(11, 2, "x"), new StreamStop(),
                new StreamAbort(10, 10, false, 0, 0));
        assertTrue(events.isEmpty());
        assertEquals(0, a.openTransactions());
        assertEquals(0, spillFiles(), "spill file deleted on abort");
    }

    @Test
    void streamAbortOfSubtransactionDiscardsOnlyItsChanges() {
        var a = assembler();
        feed(a, new StreamStart(10, 1), insert(10, 1, "top"), insert(11, 2, "sub1"), insert(12, 3, "sub2"),
                new StreamStop(), new StreamAbort(10, 11, true, 0x280, 9),
                new StreamStart(10, 0), insert(10, 4, "top"), new StreamStop(),
                new StreamCommit(10, 0, 0x300, 0x310, 2));
        Transaction t = (Transaction) events.get(0);
        assertEquals(List.of(1, 3, 4), ids(t));
        assertEquals(3, t.size());
    }

    @Test
    void subtransactionAbortAfterSpillFiltersOnRestore() throws Exception {
        var a = assembler(PreparedDelivery.AT_PREPARE, 0);
        feed(a, new StreamStart(10, 1), relation(10), insert(10, 1, "top"), insert(11, 2, "sub1"),
                insert(11, 3, "sub1"), insert(10, 4, "top"), new StreamStop(),
                new StreamAbort(10, 11, false, 0, 0), new StreamCommit(10, 0, 0x300, 0x310, 2));
        Transaction t = (Transaction) events.get(0);
        assertTrue(t.spilled());
        assertEquals(List.of(1, 4), ids(t));
        assertEquals(3, t.size()); // relation + 2 inserts
        assertInstanceOf(Relation.class, t.changeList().get(0));
        assertEquals(1, spillFiles());
        t.close();
        assertEquals(0, spillFiles());
    }

    @Test
    void preparedDeliveredAtPrepare() {
        var a = assembler(PreparedDelivery.AT_PREPARE, 1 << 20);
        feed(a, new BeginPrepare(0x100, 0x150, 1, 77, "g1"), insert(0, 1, "a"), new Prepare(0, 0x100, 0x150, 1, 77, "g1"));
        Transaction t = (Transaction) events.get(0);
        assertEquals(Transaction.Kind.PREPARED, t.kind());
        assertEquals("g1", t.gid());
        assertEquals(List.of(1), ids(t));
        a.accept(new CommitPrepared(0, 0x500, 0x510, 2, 77, "g1"));
        TwoPhaseOutcome o = (TwoPhaseOutcome) events.get(1);
        assertTrue(o.committed());
        assertTrue(o.changesKept());
        o.acknowledge();
        assertEquals(List.of(0x510L), acks);
        // a COMMIT PREPARED for a prepare this assembler never saw (e.g. before a reconnect)
        a.accept(new CommitPrepared(0, 0x600, 0x610, 3, 78, "g2"));
        assertFalse(((TwoPhaseOutcome) events.get(2)).changesKept());
    }

    @Test
    void preparedDeliveredAtCommitPreparedAfterOtherTransactions() {
        var a = assembler(PreparedDelivery.AT_COMMIT_PREPARED, 1 << 20);
        feed(a, new BeginPrepare(0x100, 0x150, 1, 77, "g1"), insert(0, 1, "a"), insert(0, 2, "b"),
                new Prepare(0, 0x100, 0x150, 1, 77, "g1"),
                new Begin(0x200, 1, 80), insert(0, 9, "z"), new Commit(0, 0x200, 0x220, 1),
                new BeginPrepare(0x300, 0x350, 1, 79, "g2"), insert(0, 5, "rolled back"),
                new Prepare(0, 0x300, 0x350, 1, 79, "g2"));
        assertEquals(1, events.size());
        assertEquals(List.of(9), ids((Transaction) events.get(0)));
        a.accept(new RollbackPrepared(0, 0x350, 0x410, 1, 2, 79, "g2"));
        TwoPhaseOutcome rb = (TwoPhaseOutcome) events.get(1);
        assertFalse(rb.committed());
        a.accept(new CommitPrepared(0, 0x500, 0x510, 2, 77, "g1"));
        Transaction t = (Transaction) events.get(2);
        assertEquals(Transaction.Kind.COMMIT_PREPARED, t.kind());
        assertEquals(List.of(1, 2), ids(t));
        assertEquals(0x510, t.endLsn());
        assertEquals(3, events.size());
        assertEquals(0, a.openTransactions());
    }

    @Test
    void keptPrepareCapsAcknowledgementsUntilCommitPrepared() {
        var a = assembler(PreparedDelivery.AT_COMMIT_PREPARED, 1 << 20);
        feed(a, new BeginPrepare(0x100, 0x150, 1, 77, "g1"), insert(0, 1, "a"),
                new Prepare(0, 0x100, 0x150, 1, 77, "g1"),
                new Begin(0x200, 1, 80), insert(0, 9, "z"), new Commit(0, 0x200, 0x220, 1));
        ((Transaction) events.get(0)).acknowledge();
        // confirming 0x220 would pass the PREPARE: after a reconnect the server would not resend it
        assertEquals(List.of(0x100L), acks);
        feed(a, new StreamStart(50, 1), insert(50, 2, "s"), new StreamStop(),
                new StreamPrepare(0, 0x300, 0x350, 1, 50, "gs"),
                new Begin(0x400, 1, 81), insert(0, 10, "y"), new Commit(0, 0x400, 0x420, 1));
        ((Transaction) events.get(1)).acknowledge();
        assertEquals(List.of(0x100L), acks, "still held by g1");
        a.accept(new CommitPrepared(0, 0x500, 0x510, 2, 77, "g1"));
        assertEquals(List.of(0x100L, 0x300L), acks, "g1 released: the capped ack flows up to gs's PREPARE");
        Transaction g1 = (Transaction) events.get(2);
        assertEquals(List.of(1), ids(g1));
        g1.acknowledge();
        assertEquals(List.of(0x100L, 0x300L), acks);
        a.accept(new RollbackPrepared(0, 0x350, 0x610, 1, 2, 50, "gs"));
        assertEquals(List.of(0x100L, 0x300L, 0x510L), acks, "nothing held: the highest requested ack goes through");
        ((TwoPhaseOutcome) events.get(3)).acknowledge();
        assertEquals(List.of(0x100L, 0x300L, 0x510L, 0x610L), acks);
    }

    @Test
    void streamedPrepareThenCommitPrepared() {
        var a = assembler(PreparedDelivery.AT_COMMIT_PREPARED, 1 << 20);
        feed(a, new StreamStart(50, 1), insert(50, 1, "a"), new StreamStop(),
                new StreamStart(50, 0), insert(51, 2, "b"), new StreamStop(),
                new StreamPrepare(0, 0x100, 0x150, 1, 50, "gs"));
        assertTrue(events.isEmpty());
        a.accept(new CommitPrepared(0, 0x500, 0x510, 2, 50, "gs"));
        Transaction t = (Transaction) events.get(0);
        assertEquals(List.of(1, 2), ids(t));
        assertEquals("gs", t.gid());
        assertTrue(t.streamed());
    }

    @Test
    void spillBeyondTinyBudgetRestoresInOrderExactlyOnce() throws Exception {
        long budget = 4096;
        var a = assembler(PreparedDelivery.AT_PREPARE, budget);
        String pad = "v".repeat(200);
        a.accept(new StreamStart(10, 1));
        a.accept(relation(10));
        for (int i = 0; i < 5000; i++) {
            a.accept(insert(10, i, pad));
            assertTrue(a.memoryBytes() <= budget, "memory " + a.memoryBytes());
        }
        a.accept(new StreamStop());
        // a second streamed transaction and a plain one meanwhile
        feed(a, new StreamStart(20, 1), insert(20, -1, "small"), new StreamStop(),
                new Begin(0x100, 1, 30), insert(0, -2, "plain"), new Commit(0, 0x100, 0x110, 1));
        assertEquals(1, events.size());
        assertTrue(spillFiles() >= 1);
        feed(a, new StreamCommit(10, 0, 0x200, 0x210, 2), new StreamCommit(20, 0, 0x300, 0x310, 3));
        assertEquals(3, events.size());
        Transaction big = (Transaction) events.get(1);
        assertTrue(big.spilled());
        assertEquals(5001, big.size());
        List<Integer> expected = IntStream.range(0, 5000).boxed().collect(Collectors.toList());
        assertEquals(expected, ids(big));
        assertEquals(expected, ids(big), "iterable twice, same content");
        Insert first = (Insert) big.changeList().get(1);
        assertEquals(pad, first.newTuple().get("v").text());
        assertEquals(List.of(-1), ids((Transaction) events.get(2)));
        assertTrue(a.peakMemoryBytes() <= budget + 1024, "peak " + a.peakMemoryBytes());
        big.acknowledge();
        assertEquals(List.of(0x210L), acks);
        assertThrows(IllegalStateException.class, () -> ids(big), "changes gone after acknowledge");
        assertEquals(0, spillFiles());
    }

    @Test
    void closeDeletesSpillFilesOfOpenTransactionsButDeliveredOnesStayReadable() throws Exception {
        var a = assembler(PreparedDelivery.AT_PREPARE, 0);
        feed(a, new StreamStart(10, 1), insert(10, 1, "a"), new StreamStop(),
                new StreamStart(20, 1), insert(20, 2, "b"), new StreamStop(), new StreamCommit(20, 0, 1, 2, 3));
        assertEquals(2, spillFiles());
        a.close();
        assertEquals(1, spillFiles(), "the delivered transaction owns its file");
        Transaction delivered = (Transaction) events.get(0);
        assertEquals(List.of(2), ids(delivered), "still readable after the assembler closed");
        delivered.close();
        assertEquals(0, spillFiles());
    }

    @Test
    void nonTransactionalMessageDeliveredImmediatelyEvenInsideAStream() {
        var a = assembler();
        Message nt = new Message(0, 0, 0x50, "p", new byte[] {1});
        Message tm = new Message(10, 1, 0x60, "p", new byte[] {2});
        feed(a, new StreamStart(10, 1), tm, nt);
        assertEquals(1, events.size());
        NonTransactionalMessage m = (NonTransactionalMessage) events.get(0);
        assertEquals(nt, m.message());
        assertEquals(0x50, m.ackLsn());
        assertTrue(acks.isEmpty(), "never acknowledged implicitly");
        // the stream counts the message as outstanding until acknowledged: it must confirm its LSN
        m.acknowledge();
        assertEquals(List.of(0x50L), acks);
        feed(a, new StreamStop(), new StreamCommit(10, 0, 1, 2, 3));
        assertEquals(List.of(tm), ((Transaction) events.get(1)).changeList());
    }

    @Test
    void skipThroughLsnDropsAlreadyProcessedTransactions() {
        var a = new TransactionAssembler(AssemblerOptions.defaults().withSkipThroughLsn(0x200)
                .withSpillDirectory(spillDir), acks::add, events::add);
        feed(a, new Begin(0x1f0, 1, 1), insert(0, 1, "old"), new Commit(0, 0x1f0, 0x200, 1),
                new Begin(0x2f0, 1, 2), insert(0, 2, "new"), new Commit(0, 0x2f0, 0x300, 1));
        assertEquals(1, events.size());
        assertEquals(List.of(2), ids((Transaction) events.get(0)));
    }

    @Test
    void brokenStructureGivesTypedErrors() {
        var a = assembler();
        assertThrows(TransactionAssemblyException.class, () -> a.accept(new Commit(0, 1, 2, 3)));
        assertThrows(TransactionAssemblyException.class, () -> a.accept(insert(0, 1, "x")));
        assertThrows(TransactionAssemblyException.class, () -> a.accept(new StreamStop()));
        a.accept(new Begin(1, 1, 1));
        assertThrows(TransactionAssemblyException.class, () -> a.accept(new Begin(2, 2, 2)));
        assertThrows(TransactionAssemblyException.class, () -> a.accept(new StreamStart(3, 1)));
        // Relation outside a transaction only updates the cache
        var b = assembler();
        b.accept(relation(0));
        assertEquals("t", b.relation(Recs.REL).name());
        assertNull(b.relation(1));
    }
}
