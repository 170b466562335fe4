package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;

/**
 * BackendKeyData 'K': Int32 pid, then the cancel key to the end of the message: 4 bytes under
 * protocol 3.0, 4 to 256 bytes under 3.2 (PG18 sends 32). Kept opaque.
 */
public record BackendKeyData(int processId, byte[] secretKey) {
    public static final int MAX_KEY_LENGTH = 256;

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
