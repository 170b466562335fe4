package io.pgrepl.flink.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** The enumerator's checkpoint. Version 2 added the stream's suspension, version 3 the pieces read again after a failure; versions 1 and 2 are still read. */
public final class EnumeratorStateSerializer implements SimpleVersionedSerializer<EnumeratorState> {
    /** The one instance (stateless). */
    public static final EnumeratorStateSerializer INSTANCE = new EnumeratorStateSerializer();
    private static final int VERSION = 3;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(EnumeratorState s) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeBoolean(s.planned());
        out.writeLong(s.streamStart());
        out.writeLong(s.stopLsn());
        out.writeInt(s.totalSplits());
        out.writeInt(s.pending().size());
        for (SnapshotSplit p : s.pending()) Wire.snapshotSplit(out, p);
        out.writeInt(s.finished().size());
        for (SnapshotSplit f : s.finished().values()) Wire.snapshotSplit(out, f);
        out.writeBoolean(s.streamReady());
        out.writeBoolean(s.streamAssigned());
        out.writeBoolean(s.returnedStream() != null);
        if (s.returnedStream() != null) Wire.streamSplit(out, s.returnedStream());
        out.writeBoolean(s.suspended() != null);
        if (s.suspended() != null) Wire.streamSplit(out, s.suspended());
        out.writeInt(s.epoch());
        out.writeBoolean(s.replanned());
        out.flush();
        return bytes.toByteArray();
    }

    @Override
    public EnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        if (version < 1 || version > VERSION) {
            throw new IOException("pgrepl enumerator state version " + version + " is not known (this build reads 1 to " + VERSION + ")");
        }
        boolean v2 = version >= 2;
        boolean v3 = version >= 3;
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
        boolean planned = in.readBoolean();
        long start = in.readLong();
        long stop = in.readLong();
        int total = in.readInt();
        int n = in.readInt();
        List<SnapshotSplit> pending = new ArrayList<>(n);
        for (int i = 0; i < n; i++) pending.add(Wire.snapshotSplit(in, v3));
        int m = in.readInt();
        Map<String, SnapshotSplit> finished = new LinkedHashMap<>();
        for (int i = 0; i < m; i++) {
            SnapshotSplit f = Wire.snapshotSplit(in, v3);
            finished.put(f.id(), f);
        }
        boolean ready = in.readBoolean();
        boolean assigned = in.readBoolean();
        StreamSplit returned = in.readBoolean() ? Wire.streamSplit(in, v2, v3) : null;
        StreamSplit suspended = v2 && in.readBoolean() ? Wire.streamSplit(in, true, v3) : null;
        int epoch = v2 ? in.readInt() : 0;
        boolean replanned = v2 && in.readBoolean();
        return new EnumeratorState(planned, start, stop, total, pending, finished, ready, assigned, returned, suspended, epoch,
                replanned);
    }
}
