package io.pgrepl.benchmarks.decode;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.pgoutput.*;

/**
 * Checks a captured input by decoding it once: how many messages of each kind, how many values came
 * in binary, and that the input holds what its name says (every row, old keys, binary values, more
 * than one stream block). Run in the setup, so a wrong capture fails the benchmark instead of
 * measuring something else.
 */
final class Census implements PgOutputHandler {
    int begins, commits, inserts, updates, oldKeys, streamStarts, streamCommits, binaryValues, values;

    static Census of(PgOutputDecoder decoder, ByteBuf batch, int[] offsets, int[] lengths) {
        Census c = new Census();
        for (int i = 0; i < offsets.length; i++) decoder.decode(batch, offsets[i], lengths[i], c);
        return c;
    }

    void check(String input) {
        boolean ok = switch (input) {
            case "narrow", "wide" -> inserts == DecodeInputs.ROWS && begins == 1 && commits == 1 && binaryValues == 0;
            case "binary" -> inserts == DecodeInputs.ROWS && binaryValues == values && values > 0;
            case "update_old_key" -> updates == DecodeInputs.ROWS && oldKeys == DecodeInputs.ROWS;
            case "streamed" -> inserts == DecodeInputs.ROWS && streamStarts > 1 && streamCommits == 1 && begins == 0;
            default -> false;
        };
        if (!ok) throw new IllegalStateException("input " + input + " is not what it claims: " + this);
    }

    @Override
    public void onBegin(BeginMessage m) {
        begins++;
    }

    @Override
    public void onCommit(CommitMessage m) {
        commits++;
    }

    @Override
    public void onInsert(InsertMessage m) {
        inserts++;
        count(m.newTuple());
    }

    @Override
    public void onUpdate(UpdateMessage m) {
        updates++;
        if (m.hasOldTuple() && m.oldTuple().isKeyOnly()) oldKeys++;
        count(m.newTuple());
    }

    @Override
    public void onStreamStart(StreamStartMessage m) {
        streamStarts++;
    }

    @Override
    public void onStreamCommit(StreamCommitMessage m) {
        streamCommits++;
    }

    private void count(TupleView t) {
        for (int i = 0; i < t.columnCount(); i++) {
            if (!t.kind(i).hasValue()) continue;
            values++;
            if (t.isBinary(i)) binaryValues++;
        }
    }

    @Override
    public String toString() {
        return "begin " + begins + ", commit " + commits + ", insert " + inserts + ", update " + updates
                + " (old key " + oldKeys + "), stream start " + streamStarts + ", stream commit " + streamCommits
                + ", values " + values + " (binary " + binaryValues + ")";
    }
}
