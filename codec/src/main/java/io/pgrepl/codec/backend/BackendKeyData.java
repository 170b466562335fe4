package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;

/**
 * BackendKeyData 'K': Int32 pid, then the cancel key to the end of the message: 4 bytes under
 * protocol 3.0, 4 to 256 bytes under 3.2 (PG18 sends 32). Kept opaque.
 *
 * @param processId the backend's process ID, as in {@code pg_stat_activity.pid}
 * @param secretKey the cancel key, sent back verbatim in a CancelRequest; never logged
 */
public record BackendKeyData(int processId, byte[] secretKey) {
    /** Longest cancel key protocol 3.2 allows, in bytes. */
    public static final int MAX_KEY_LENGTH = 256;

    /**
     * Decodes a BackendKeyData payload.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return the pid and a copy of the key
     * @throws MalformedMessageException if shorter than 8 bytes or the key exceeds {@link #MAX_KEY_LENGTH}
     */
    public static BackendKeyData decode(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Wire.require(base, 8, end, "BackendKeyData", base, "pid and key");
        int keyLength = end - base - 4;
        if (keyLength > MAX_KEY_LENGTH) {
            throw new MalformedMessageException("BackendKeyData", 4, "cancel key of " + keyLength + " bytes exceeds 256");
        }
        byte[] key = new byte[keyLength];
        payload.getBytes(base + 4, key);
        return new BackendKeyData(payload.getInt(base), key);
    }

    @Override
    public String toString() {
        // The key lets anyone cancel this backend's queries: keep it out of logs.
        return "BackendKeyData[pid=" + processId + ", key=" + secretKey.length + " bytes]";
    }
}
