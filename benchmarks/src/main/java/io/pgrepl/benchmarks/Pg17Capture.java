package io.pgrepl.benchmarks;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import io.pgrepl.codec.pgoutput.PgOutputHandler;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** The PostgreSQL 17 golden capture the decode benchmarks measure, loaded once per setup. */
final class Pg17Capture {
    private Pg17Capture() {}

    /**
     * Primes every decoder's caches with the capture's Relation/Type messages and returns the
     * other messages that decode against those final descriptions (the changes from before the
     * capture's ALTER TABLE no longer match and are left out).
     */
    static List<byte[]> primeAndSelect(PgOutputDecoder... decoders) throws Exception {
        List<byte[]> all = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Pg17Capture.class.getResourceAsStream("/golden/pg17-proto1.tsv"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isEmpty()) all.add(HexFormat.of().parseHex(line.substring(line.indexOf('\t') + 1)));
            }
        }
        PgOutputHandler ignore = new PgOutputHandler() {};
        for (byte[] m : all) {
            if (isMetadata(m)) {
                for (PgOutputDecoder d : decoders) d.decode(Unpooled.wrappedBuffer(m), ignore);
            }
        }
        List<byte[]> measured = new ArrayList<>();
        for (byte[] m : all) {
            if (isMetadata(m)) continue;
            try {
                decoders[0].decode(Unpooled.wrappedBuffer(m), ignore);
                measured.add(m);
            } catch (RuntimeException e) {
                // A change from before the capture's ALTER TABLE no longer matches the final Relation.
            }
        }
        if (measured.size() != PgOutputDecodeBenchmark.MESSAGES) {
            throw new IllegalStateException("capture has " + measured.size() + " measured messages; set MESSAGES");
        }
        return measured;
    }

    private static boolean isMetadata(byte[] m) {
        return m[0] == PgOutputMessageType.RELATION || m[0] == PgOutputMessageType.TYPE;
    }
}
