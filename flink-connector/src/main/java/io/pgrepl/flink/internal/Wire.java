package io.pgrepl.flink.internal;

import io.pgrepl.flink.TableName;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The pieces the split and state serializers write: strings of any length, nullable key bounds, pieces, tables. */
final class Wire {
    private Wire() {}

    static void string(DataOutput out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    static String string(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) return null;
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A list of strings, or null. */
    static void strings(DataOutput out, List<String> l) throws IOException {
        if (l == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(l.size());
        for (String s : l) string(out, s);
    }

    static List<String> strings(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) return null;
        List<String> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) l.add(string(in));
        return l;
    }

    static void table(DataOutput out, TableName t) throws IOException {
        string(out, t.schema());
        string(out, t.table());
    }

    static TableName table(DataInput in) throws IOException {
        return new TableName(string(in), string(in));
    }

    static void pieces(DataOutput out, List<Piece> pieces) throws IOException {
        out.writeInt(pieces.size());
        for (Piece p : pieces) {
            strings(out, p.upTo());
            string(out, p.snapshot());
            out.writeLong(p.lsn());
            out.writeBoolean(p.again());
        }
    }

    /** Pieces; {@code again}: the format (version 3 on) that records {@link Piece#again}. */
    static List<Piece> pieces(DataInput in, boolean again) throws IOException {
        int n = in.readInt();
        List<Piece> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) l.add(new Piece(strings(in), string(in), in.readLong(), again && in.readBoolean()));
        return l;
    }

    static void snapshotSplit(DataOutput out, SnapshotSplit s) throws IOException {
        string(out, s.id());
        table(out, s.table());
        out.writeInt(s.index());
        strings(out, s.keyColumns());
        strings(out, s.after());
        strings(out, s.upTo());
        pieces(out, s.pieces());
        out.writeBoolean(s.finished());
        out.writeBoolean(s.again());
    }

    /** A snapshot split; {@code again}: the format (version 3 on) that records {@link SnapshotSplit#again}. */
    static SnapshotSplit snapshotSplit(DataInput in, boolean again) throws IOException {
        return new SnapshotSplit(string(in), table(in), in.readInt(), strings(in), strings(in), strings(in), pieces(in, again),
                in.readBoolean(), again && in.readBoolean());
    }

    static void streamSplit(DataOutput out, StreamSplit s) throws IOException {
        out.writeLong(s.lsn());
        out.writeLong(s.partialEndLsn());
        out.writeLong(s.partialCount());
        out.writeLong(s.stopLsn());
        out.writeInt(s.coverage().size());
        for (Map.Entry<TableName, List<Piece>> e : s.coverage().entrySet()) {
            table(out, e.getKey());
            pieces(out, e.getValue());
        }
        out.writeInt(s.reread().size());
        for (TableName t : s.reread()) table(out, t);
        out.writeInt(s.held().size());
        for (HeldDelete h : s.held()) heldDelete(out, h);
        out.writeInt(s.epoch());
        Resnapshot r = s.suspended();
        out.writeBoolean(r != null);
        if (r != null) {
            out.writeBoolean(r.slotLost());
            out.writeInt(r.tables().size());
            for (TableName t : r.tables()) table(out, t);
        }
    }

    /** A stream split; {@code withSuspension}: the format (version 2 on) that records a suspension; {@code again}: version 3 on. */
    static StreamSplit streamSplit(DataInput in, boolean withSuspension, boolean again) throws IOException {
        long lsn = in.readLong();
        long partialEnd = in.readLong();
        long partialCount = in.readLong();
        long stop = in.readLong();
        int n = in.readInt();
        Map<TableName, List<Piece>> coverage = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) coverage.put(table(in), pieces(in, again));
        Resnapshot suspended = null;
        java.util.Set<TableName> reread = new java.util.LinkedHashSet<>();
        List<HeldDelete> held = new ArrayList<>();
        if (withSuspension) {
            int r = in.readInt();
            for (int i = 0; i < r; i++) reread.add(table(in));
            int h = in.readInt();
            for (int i = 0; i < h; i++) held.add(heldDelete(in));
        }
        int epoch = withSuspension ? in.readInt() : 0;
        if (withSuspension && in.readBoolean()) {
            boolean lost = in.readBoolean();
            int k = in.readInt();
            List<TableName> tables = new ArrayList<>(k);
            for (int i = 0; i < k; i++) tables.add(table(in));
            suspended = new Resnapshot(tables, lost);
        }
        return new StreamSplit(lsn, partialEnd, partialCount, stop, coverage, reread, held, epoch, suspended);
    }

    private static void heldDelete(DataOutput out, HeldDelete h) throws IOException {
        table(out, h.table());
        strings(out, h.key());
        strings(out, h.names());
        for (int i = 0; i < h.names().size(); i++) {
            out.writeInt(h.oids()[i]);
            out.writeByte(h.kinds()[i]);
            byte[] v = h.values()[i];
            out.writeInt(v == null ? -1 : v.length);
            if (v != null) out.write(v);
        }
        out.writeBoolean(h.whole());
        out.writeLong(h.xid());
        out.writeLong(h.commitLsn());
        out.writeLong(h.commitTimeMicros());
    }

    private static HeldDelete heldDelete(DataInput in) throws IOException {
        TableName t = table(in);
        List<String> key = strings(in);
        List<String> names = strings(in);
        int n = names.size();
        int[] oids = new int[n];
        byte[] kinds = new byte[n];
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            oids[i] = in.readInt();
            kinds[i] = in.readByte();
            int len = in.readInt();
            if (len >= 0) {
                values[i] = new byte[len];
                in.readFully(values[i]);
            }
        }
        return new HeldDelete(t, key, names, oids, kinds, values, in.readBoolean(), in.readLong(), in.readLong(), in.readLong());
    }
}
