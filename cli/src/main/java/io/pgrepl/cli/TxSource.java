package io.pgrepl.cli;

import io.pgrepl.client.reactive.RecordForwarder;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.tx.AssemblerOptions;
import io.pgrepl.client.tx.PreparedDelivery;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TransactionAssembler;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.replication.XLogData;
import java.io.PrintStream;
import java.util.function.LongConsumer;

/**
 * {@code --format json} on the event loop: the library's {@link TransactionAssembler} groups the
 * records into committed transactions (streamed ones assembled, aborted subtransactions dropped,
 * prepared ones kept until COMMIT PREPARED, large ones spilled to disk) and hands each to the
 * printing thread. Only whole transactions are ever printed, so a reconnect cannot leave a partial
 * one behind.
 */
class TxSource extends RecordForwarder {
    /** Undelivered changes beyond this go to spill files: the CLI's heap stays small with any backlog. */
    static final long MEMORY_BUDGET = 16L << 20;

    private final StreamRun run;
    private final TransactionAssembler assembler;
    /** Highest end LSN handed to the printing thread: it will be printed, so a resend is a duplicate. */
    private long handedOver;
    /** Where a snapshot signal this stream does not act on is reported (once), or null: it acts on them. */
    private PrintStream ignoredSignals;

    TxSource(StreamRun run, LongConsumer acknowledge) {
        this.run = run;
        this.assembler = new TransactionAssembler(AssemblerOptions.defaults()
                .withPreparedDelivery(PreparedDelivery.AT_COMMIT_PREPARED).withMemoryBudgetBytes(MEMORY_BUDGET),
                acknowledge, this::deliver);
    }

    /**
     * Without --accept-signals: a {@code pgrepl} logical message (a snapshot signal, seen with --messages) is only
     * printed; the first one also says on {@code err} that nothing acts on it, so a signal sent to the wrong
     * stream is not silently lost.
     */
    TxSource reportIgnoredSignals(PrintStream err) {
        ignoredSignals = err;
        return this;
    }

    private void deliver(TxEvent e) {
        if (e instanceof Transaction t) handedOver = Lsn.max(handedOver, t.endLsn());
        long bytes = e instanceof Transaction t && !t.spilled() ? t.estimatedBytes() : 256;
        run.handOver(e, bytes);
    }

    @Override
    public void onStarted(LogicalReplicationStream stream) {
        assembler.onNewConnection(Lsn.max(stream.dedupFloor(), handedOver));
        run.started(stream);
    }

    @Override
    public void onXLogData(XLogData header) {
        super.onXLogData(header);
        run.dataArrived();
    }

    @Override
    protected void onRecord(PgOutputRecord record, long walStart, long walEnd) {
        if (ignoredSignals != null && record instanceof Message m && SnapshotSignals.MESSAGE_PREFIX.equals(m.prefix())) {
            ignoredSignals.println("pgrepl: snapshot signal (logical message at " + Lsn.format(m.messageLsn()) + ") ignored: this"
                    + " stream acts on signals only with --accept-signals; further signals are ignored without a word");
            ignoredSignals = null;
        }
        assembler.accept(record);
    }

    /** After the stream ended (no more records): deletes what is still buffered or spilled. */
    void close() {
        assembler.close();
    }
}
