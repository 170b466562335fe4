package io.pgrepl.flink.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Splits in checkpoints and on the wire to readers: a kind byte, then the split's fields. Version 2
 * added the stream split's suspension, version 3 the pieces read again after a failure; versions 1 and 2 are still read.
 */
public final class SplitSerializer implements SimpleVersionedSerializer<PgreplSplit> {
    /** The one instance (stateless). */
    public static final SplitSerializer INSTANCE = new SplitSerializer();
    private static final int VERSION = 3;
    private static final byte SNAPSHOT = 1;
    private static final byte STREAM = 2;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(PgreplSplit split) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        DataOutputStream out = new DataOutputStream(bytes);
        if (split instanceof SnapshotSplit s) {
            out.writeByte(SNAPSHOT);
            Wire.snapshotSplit(out, s);
        } else if (split instanceof StreamSplit s) {
            out.writeByte(STREAM);
            Wire.streamSplit(out, s);
        }
        out.flush();
        return bytes.toByteArray();
    }

    @Override
    public PgreplSplit deserialize(int version, byte[] serialized) throws IOException {
        if (version < 1 || version > VERSION) {
            throw new IOException("pgrepl split version " + version + " is not known (this build reads 1 to " + VERSION + ")");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
        byte kind = in.readByte();
        return switch (kind) {
            case SNAPSHOT -> Wire.snapshotSplit(in, version >= 3);
            case STREAM -> Wire.streamSplit(in, version >= 2, version >= 3);
            default -> throw new IOException("unknown pgrepl split kind " + kind);
        };
    }
}
