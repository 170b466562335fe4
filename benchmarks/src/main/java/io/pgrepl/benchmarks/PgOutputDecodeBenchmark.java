package io.pgrepl.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.*;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decoding a real PostgreSQL 17 pgoutput stream (the golden capture pg17/proto1: Begin/Commit,
 * inserts, updates and deletes of text, varchar, boolean, integer and enum columns, a 3.2kB
 * TOASTed text, truncate, origin, logical messages), flyweight views versus records.
 *
 * <p>Relation and Type messages are decoded once in the setup (they build the caches and allocate
 * by design); the measured batch is every other message of the capture that matches the final
 * Relations (the few t_default changes from before the capture's ALTER TABLE are left out), laid
 * out back to back in one buffer, direct or heap ({@link #buffer}). Scores are per message
 * ({@link OperationsPerInvocation}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class PgOutputDecodeBenchmark {
    /** Measured messages per invocation; must match the capture (checked in setup). */
    static final int MESSAGES = 134;

    /**
     * {@code direct}: no backing array, so {@code TupleView.int4/int8} take the checked path
     * through {@code PgValues}; {@code heap}: an array, so they take the array fast path (the
     * stream's frames are array-backed).
     */
    @Param({"direct", "heap"})
    public String buffer;

    private ByteBuf batch;
    private int[] offsets;
    private int[] lengths;
    private PgOutputDecoder viewDecoder;
    private PgOutputDecoder recordDecoder;
    private TouchEveryColumn visitor;
    private PgOutputHandler collector;
    private Blackhole bh;

    @Setup
    public void setup(Blackhole bh) throws Exception {
        this.bh = bh;
        viewDecoder = new PgOutputDecoder();
        recordDecoder = new PgOutputDecoder();
        List<byte[]> measured = Pg17Capture.primeAndSelect(viewDecoder, recordDecoder);
        int total = measured.stream().mapToInt(b -> b.length).sum();
        batch = buffer.equals("heap") ? Unpooled.buffer(total) : Unpooled.directBuffer(total);
        offsets = new int[measured.size()];
        lengths = new int[measured.size()];
        for (int i = 0; i < measured.size(); i++) {
            offsets[i] = batch.writerIndex();
            lengths[i] = measured.get(i).length;
            batch.writeBytes(measured.get(i));
        }
        System.out.printf("%n[setup] %d messages, %d bytes, %.1f bytes/message%n", MESSAGES, total, (double) total / MESSAGES);
        visitor = new TouchEveryColumn();
        collector = PgOutputRecords.collector(this::touch);
    }

    @TearDown
    public void tearDown() {
        batch.release();
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long views() {
        visitor.sum = 0;
        for (int i = 0; i < offsets.length; i++) viewDecoder.decode(batch, offsets[i], lengths[i], visitor);
        return visitor.sum;
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void records() {
        for (int i = 0; i < offsets.length; i++) recordDecoder.decode(batch, offsets[i], lengths[i], collector);
    }

    private void touch(PgOutputRecord r) {
        long sum = 0;
        if (r instanceof Insert i) sum = touch(i.newTuple());
        else if (r instanceof Update u) sum = (u.oldTuple() == null ? 0 : touch(u.oldTuple())) + touch(u.newTuple());
        else if (r instanceof Delete d) sum = touch(d.oldTuple());
        bh.consume(sum);
        bh.consume(r);
    }

    private static long touch(Tuple t) {
        long sum = 0;
        for (ColumnValue v : t.columns()) sum += v.kind().ordinal() + (v.bytes() == null ? 0 : v.bytes().length);
        return sum;
    }

    /** Reads every column in place: integers parsed, other values' lengths summed; no allocation. */
    public static final class TouchEveryColumn implements PgOutputHandler {
        public long sum;

        @Override
        public void onBegin(BeginMessage m) {
            sum += m.xid() + m.finalLsn();
        }

        @Override
        public void onCommit(CommitMessage m) {
            sum += m.endLsn();
        }

        @Override
        public void onInsert(InsertMessage m) {
            sum += touch(m.newTuple());
        }

        @Override
        public void onUpdate(UpdateMessage m) {
            if (m.hasOldTuple()) sum += touch(m.oldTuple());
            sum += touch(m.newTuple());
        }

        @Override
        public void onDelete(DeleteMessage m) {
            sum += touch(m.oldTuple());
        }

        @Override
        public void onTruncate(TruncateMessage m) {
            for (int i = 0; i < m.relationCount(); i++) sum += m.relationOid(i);
        }

        @Override
        public void onMessage(LogicalMessage m) {
            sum += m.contentLength();
        }

        @Override
        public void onOrigin(OriginMessage m) {
            sum += m.originLsn();
        }

        private static long touch(TupleView t) {
            long s = 0;
            for (int i = 0; i < t.columnCount(); i++) {
                ColumnKind k = t.kind(i);
                s += k.ordinal();
                if (!k.hasValue()) continue;
                if (t.column(i).typeOid() == 23) s += t.int4(i);
                else s += t.valueLength(i) + t.buffer().getByte(t.valueIndex(i));
            }
            return s;
        }
    }
}
