package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Frontend (client to server) messages, each written straight into a buffer from the channel's
 * (pooled) allocator. Length fields are patched after the body is written so no size has to be
 * computed twice.
 */
public final class Frontend {
    /** StartupMessage protocol code for 3.0 (3 &lt;&lt; 16). */
    public static final int PROTOCOL_3_0 = 196608;
    /** StartupMessage protocol code for 3.2 (PostgreSQL 18). */
    public static final int PROTOCOL_3_2 = 196610;
    /** SSLRequest code (1234 &lt;&lt; 16 | 5679). */
    public static final int SSL_REQUEST_CODE = 80877103;
    /** CancelRequest code (1234 &lt;&lt; 16 | 5678). */
    public static final int CANCEL_REQUEST_CODE = 80877102;

    private Frontend() {}

    /**
     * StartupMessage: no type byte; Int32 length, Int32 protocol, name/value pairs, NUL.
     *
     * @param alloc the channel's allocator
     * @param protocol {@link #PROTOCOL_3_0} or {@link #PROTOCOL_3_2}
     * @param params   user, database, replication and GUCs
     * @return the message
     */
    public static ByteBuf startup(ByteBufAllocator alloc, int protocol, Map<String, String> params) {
        ByteBuf b = alloc.buffer(256);
        b.writeInt(0).writeInt(protocol);
        params.forEach((k, v) -> {
            cstring(b, k);
            cstring(b, v);
        });
        b.writeByte(0);
        return b.setInt(0, b.writerIndex());
    }

    /**
     * SSLRequest: asks the server to start TLS.
     *
     * @param alloc the channel's allocator
     * @return the message
     */
    public static ByteBuf sslRequest(ByteBufAllocator alloc) {
        return alloc.buffer(8).writeInt(8).writeInt(SSL_REQUEST_CODE);
    }

    /**
     * CancelRequest: Int32 length, code, pid, then the key as received (4 bytes in 3.0, up to 256 in 3.2).
     *
     * @param alloc the channel's allocator
     * @param pid   the backend's process ID from BackendKeyData
     * @param key   the secret key from BackendKeyData
     * @return the message
     */
    public static ByteBuf cancelRequest(ByteBufAllocator alloc, int pid, byte[] key) {
        ByteBuf b = alloc.buffer(12 + key.length);
        b.writeInt(12 + key.length).writeInt(CANCEL_REQUEST_CODE).writeInt(pid).writeBytes(key);
        return b;
    }

    /**
     * Query 'Q': the simple query protocol, the only one a walsender accepts.
     *
     * @param alloc the channel's allocator
     * @param sql   the query or replication command
     * @return the message
     */
    public static ByteBuf query(ByteBufAllocator alloc, String sql) {
        ByteBuf b = alloc.buffer(sql.length() + 8);
        b.writeByte('Q').writeInt(0);
        cstring(b, sql);
        return patchLength(b);
    }

    /**
     * PasswordMessage 'p' holding a NUL-terminated String (cleartext or md5 digest).
     *
     * @param alloc the channel's allocator
     * @param passwordBytes the password or md5 digest, without the NUL
     * @return the message
     */
    public static ByteBuf password(ByteBufAllocator alloc, byte[] passwordBytes) {
        ByteBuf b = alloc.buffer(passwordBytes.length + 6);
        b.writeByte('p').writeInt(0).writeBytes(passwordBytes).writeByte(0);
        return patchLength(b);
    }

    /**
     * SASLInitialResponse 'p': String mechanism, Int32 length (-1 = none), bytes.
     *
     * @param alloc the channel's allocator
     * @param mechanism the chosen SASL mechanism
     * @param initial   the client-first-message, or null
     * @return the message
     */
    public static ByteBuf saslInitialResponse(ByteBufAllocator alloc, String mechanism, byte[] initial) {
        ByteBuf b = alloc.buffer(64 + (initial == null ? 0 : initial.length));
        b.writeByte('p').writeInt(0);
        cstring(b, mechanism);
        if (initial == null) {
            b.writeInt(-1);
        } else {
            b.writeInt(initial.length).writeBytes(initial);
        }
        return patchLength(b);
    }

    /**
     * SASLResponse 'p': raw bytes, length implied by the message length.
     *
     * @param alloc the channel's allocator
     * @param data  the SASL data
     * @return the message
     */
    public static ByteBuf saslResponse(ByteBufAllocator alloc, byte[] data) {
        ByteBuf b = alloc.buffer(5 + data.length);
        b.writeByte('p').writeInt(4 + data.length).writeBytes(data);
        return b;
    }

    /**
     * CopyData 'd' header for a payload of {@code payloadLength} bytes the caller writes next.
     *
     * @param b             the buffer to write into
     * @param payloadLength the payload's length in bytes
     * @return {@code b}
     */
    public static ByteBuf copyDataHeader(ByteBuf b, int payloadLength) {
        return b.writeByte('d').writeInt(4 + payloadLength);
    }

    /**
     * CopyDone 'c': ends the client's side of copy mode.
     *
     * @param alloc the channel's allocator
     * @return the message
     */
    public static ByteBuf copyDone(ByteBufAllocator alloc) {
        return alloc.buffer(5).writeByte('c').writeInt(4);
    }

    /**
     * Terminate 'X': the client closes the connection.
     *
     * @param alloc the channel's allocator
     * @return the message
     */
    public static ByteBuf terminate(ByteBufAllocator alloc) {
        return alloc.buffer(5).writeByte('X').writeInt(4);
    }

    private static void cstring(ByteBuf b, String s) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a protocol string cannot contain NUL");
        }
        b.writeCharSequence(s, StandardCharsets.UTF_8);
        b.writeByte(0);
    }

    private static ByteBuf patchLength(ByteBuf b) {
        return b.setInt(1, b.writerIndex() - 1);
    }
}
