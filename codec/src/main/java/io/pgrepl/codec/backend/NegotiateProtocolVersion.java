package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;
import java.util.ArrayList;
import java.util.List;

/** NegotiateProtocolVersion 'v': Int32 newest minor version supported, Int32 n, n × String unrecognised option. */
public record NegotiateProtocolVersion(int newestMinorVersion, List<String> unrecognizedOptions) {
    public static NegotiateProtocolVersion decode(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Wire.require(base, 8, end, "NegotiateProtocolVersion", base, "version and count");
        int minor = payload.getInt(base);
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
