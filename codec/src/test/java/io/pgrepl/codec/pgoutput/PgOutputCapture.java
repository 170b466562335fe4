package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.Lsn;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper for golden vectors: reads {@code LSN<TAB>HEX} lines, the shape of
 * {@code SELECT lsn, data FROM pg_logical_slot_peek_binary_changes(...)} printed by psql
 * unaligned with a tab separator (data as {@code \x…} hex; the prefix is optional). Blank lines
 * and lines starting with '#' are skipped. Extra tab-separated columns (e.g. xid) after the
 * LSN are allowed: the last column is the data.
 */
public final class PgOutputCapture {
    public record Entry(long lsn, byte[] data) {
        public ByteBuf buffer() {
            return Unpooled.wrappedBuffer(data);
        }
    }

    private PgOutputCapture() {}

    public static List<Entry> read(InputStream in) throws IOException {
        return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }

    public static List<Entry> resource(String name) throws IOException {
        try (InputStream in = PgOutputCapture.class.getResourceAsStream(name)) {
            if (in == null) throw new IOException("no test resource " + name);
            return read(in);
        }
    }

    public static List<Entry> parse(String text) {
        List<Entry> out = new ArrayList<>();
        String[] lines = text.split("\r?\n");
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] cols = line.split("\t");
            if (cols.length < 2) throw new IllegalArgumentException("line " + (n + 1) + ": expected LSN<TAB>HEX");
            String hex = cols[cols.length - 1];
            if (hex.startsWith("\\x")) hex = hex.substring(2);
            if ((hex.length() & 1) != 0) throw new IllegalArgumentException("line " + (n + 1) + ": odd hex length");
            byte[] data = new byte[hex.length() / 2];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
            }
            out.add(new Entry(Lsn.parse(cols[0]), data));
        }
        return out;
    }
}
