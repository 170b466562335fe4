package io.pgrepl.benchmarks.decode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import io.pgrepl.codec.pgoutput.PgOutputHandler;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.benchmarks.PgOutputDecodeBenchmark.TouchEveryColumn;
import io.pgrepl.testkit.PgServer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One input batch (a whole captured transaction, see {@link DecodeInputs}) decoded per operation by
 * each path: pgrepl's flyweight views with every column read in place, pgrepl's records, Debezium's
 * own pgoutput decoder ({@link DebeziumDecoder}), and a memory-scan floor that reads every byte of
 * the same buffer once. One operation = one batch; per-message and MB/s figures are derived from the
 * batch sizes printed by the setup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class DecodePathsBenchmark {
    @Param({"narrow", "wide", "update_old_key", "binary", "streamed"})
    public String input;

    DecodeInputs.Input captured;
    ByteBuf batch;
    int[] offsets;
    int[] lengths;
    private PgOutputDecoder viewDecoder;
    private PgOutputDecoder recordDecoder;
    private TouchEveryColumn visitor;
    private PgOutputHandler collector;
    private PgOutputHandler columnsCollector;
    private Blackhole bh;

    @Setup(Level.Trial)
    public void setup(Blackhole bh) throws Exception {
        // The server goes once the input is captured: its log threads would allocate in this JVM and
        // show in -prof gc's B/op, which counts every thread. (Debezium's state has a server of its own.)
        try (PgServer s = DecodeInputs.start()) {
            prepare(bh, s);
        }
    }

    /** Captures {@link #input} on {@code server} and checks it by decoding it (see {@link Census}). */
    void prepare(Blackhole bh, PgServer server) throws Exception {
        this.bh = bh;
        captured = DecodeInputs.capture(server, input);
        viewDecoder = new PgOutputDecoder();
        recordDecoder = new PgOutputDecoder();
        PgOutputHandler ignore = new PgOutputHandler() {};
        for (byte[] m : captured.all()) {
            viewDecoder.decode(Unpooled.wrappedBuffer(m), ignore);
            recordDecoder.decode(Unpooled.wrappedBuffer(m), ignore);
        }
        List<byte[]> measured = captured.measured();
        batch = Unpooled.directBuffer(captured.bytes());
        offsets = new int[measured.size()];
        lengths = new int[measured.size()];
        for (int i = 0; i < measured.size(); i++) {
            offsets[i] = batch.writerIndex();
            lengths[i] = measured.get(i).length;
            batch.writeBytes(measured.get(i));
        }
        visitor = new TouchEveryColumn();
        collector = PgOutputRecords.collector(this::touch);
        columnsCollector = PgOutputRecords.collector(this::touchColumns);
        Census census = Census.of(viewDecoder, batch, offsets, lengths);
        census.check(input);
        System.out.printf("%n[setup] input %s: %d measured messages, %d bytes (%.1f bytes/message); %s%n", input,
                measured.size(), batch.readableBytes(), (double) batch.readableBytes() / measured.size(), census);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        batch.release();
    }

    /** The floor: every byte of the batch read once, through the same buffer the views read. */
    @Benchmark
    public long scan() {
        ByteBuf b = batch;
        long sum = 0;
        for (int i = 0, n = b.writerIndex(); i < n; i++) sum += b.getByte(i);
        return sum;
    }

    @Benchmark
    public long views() {
        visitor.sum = 0;
        for (int i = 0; i < offsets.length; i++) viewDecoder.decode(batch, offsets[i], lengths[i], visitor);
        return visitor.sum;
    }

    @Benchmark
    public void records() {
        for (int i = 0; i < offsets.length; i++) recordDecoder.decode(batch, offsets[i], lengths[i], collector);
    }

    /** Records read through {@link Tuple#columns()}: each column's {@link ColumnValue} built and its bytes copied. */
    @Benchmark
    public void records_columns() {
        for (int i = 0; i < offsets.length; i++) recordDecoder.decode(batch, offsets[i], lengths[i], columnsCollector);
    }

    /** Debezium's decoder, its column objects touched (name, type); values stay the Strings it decoded. */
    @Benchmark
    public long debezium(DebeziumDecoder d) throws Exception {
        return d.decodeAll(false);
    }

    /** Debezium's decoder plus each column's {@code getValue} (its conversion to Java values). */
    @Benchmark
    public long debezium_values(DebeziumDecoder d) throws Exception {
        return d.decodeAll(true);
    }

    private void touch(PgOutputRecord r) {
        long sum = 0;
        if (r instanceof Insert i) sum = touch(i.newTuple());
        else if (r instanceof Update u) sum = (u.oldTuple() == null ? 0 : touch(u.oldTuple())) + touch(u.newTuple());
        else if (r instanceof Delete d) sum = touch(d.oldTuple());
        bh.consume(sum);
        bh.consume(r);
    }

    private void touchColumns(PgOutputRecord r) {
        long sum = 0;
        if (r instanceof Insert i) sum = touchColumns(i.newTuple());
        else if (r instanceof Update u) {
            sum = (u.oldTuple() == null ? 0 : touchColumns(u.oldTuple())) + touchColumns(u.newTuple());
        } else if (r instanceof Delete d) sum = touchColumns(d.oldTuple());
        bh.consume(sum);
        bh.consume(r);
    }

    /** Every column's kind and value length, read from the tuple's copied array (no ColumnValue built). */
    private static long touch(Tuple t) {
        long sum = 0;
        for (int i = 0; i < t.size(); i++) sum += t.kind(i).ordinal() + Math.max(0, t.valueLength(i));
        return sum;
    }

    /** The same through {@link Tuple#columns()}: a {@link ColumnValue} and a value copy per column. */
    private static long touchColumns(Tuple t) {
        long sum = 0;
        for (ColumnValue v : t.columns()) sum += v.kind().ordinal() + (v.bytes() == null ? 0 : v.bytes().length);
        return sum;
    }
}
