package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;
import java.util.ArrayList;
import java.util.List;

/**
 * NegotiateProtocolVersion 'v': Int32 newest version supported, Int32 n, n × String unrecognised
 * option. The docs call the first field the "newest minor version", but servers (checked on PG
 * 10-17) send the whole version code, e.g. 196608 for 3.0; both spellings are read here.
 *
 * @param newestMinorVersion  the newest minor version of protocol 3 the server supports, e.g. 0 for 3.0
 * @param unrecognizedOptions the {@code _pq_.} startup options the server did not recognise
 */
public record NegotiateProtocolVersion(int newestMinorVersion, List<String> unrecognizedOptions) {
    /**
     * Decodes a NegotiateProtocolVersion payload.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return the version and options
     * @throws MalformedMessageException if the version is not protocol 3 or the option list does not fit
     */
    public static NegotiateProtocolVersion decode(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Wire.require(base, 8, end, "NegotiateProtocolVersion", base, "version and count");
        int version = payload.getInt(base);
        int minor;
        if (version >>> 16 == 3) {
            minor = version & 0xffff;
        } else if (version >= 0 && version <= 0xffff) {
            minor = version;
        } else {
            throw new MalformedMessageException("NegotiateProtocolVersion", 0, "version " + (version >>> 16) + "."
                    + (version & 0xffff) + " is not a protocol 3 version");
        }
        int n = payload.getInt(base + 4);
        if (n < 0 || n > end - base - 8) {
            throw new MalformedMessageException("NegotiateProtocolVersion", 4, "option count " + n + " does not fit");
        }
        List<String> options = new ArrayList<>(n);
        int i = base + 8;
        for (int k = 0; k < n; k++) {
            int nul = Wire.cstringEnd(payload, i, end, "NegotiateProtocolVersion", base);
            options.add(Wire.utf8(payload, i, nul));
            i = nul + 1;
        }
        if (i != end) throw new MalformedMessageException("NegotiateProtocolVersion", i - base, "trailing bytes");
        return new NegotiateProtocolVersion(minor, List.copyOf(options));
    }
}
