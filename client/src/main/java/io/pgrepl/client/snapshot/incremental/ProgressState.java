package io.pgrepl.client.snapshot.incremental;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The resumable progress of incremental snapshots as one small string, to store with the LSN the
 * application acknowledges: per table (running first, then queued) its name, additional condition,
 * surrogate key and key ranges, each range with the last key emitted. Chunks read but not yet emitted are not in
 * it: a restart reads them again. Format: lines of space-separated, URL-encoded fields,
 * {@code pgrepl-inc 1} first; keys as their column texts.
 */
final class ProgressState {
    static final String HEADER = "pgrepl-inc 1";
    private static final String NONE = "-";

    /** One key range of a table and how far it got. */
    record Range(List<String> after, List<String> upTo, List<String> lastKey, boolean done) {}

    /** One table: null ranges while it was still queued or planning. */
    record Table(String name, String condition, String surrogateKey, List<Range> ranges) {}

    private ProgressState() {}

    static String encode(List<Table> tables) {
        StringBuilder b = new StringBuilder(HEADER);
        for (Table t : tables) {
            b.append("\nt ").append(field(t.name())).append(' ').append(field(t.condition())).append(' ').append(field(t.surrogateKey()));
            if (t.ranges() == null) continue;
            for (Range r : t.ranges()) {
                b.append("\nr ").append(key(r.after())).append(' ').append(key(r.upTo())).append(' ').append(key(r.lastKey()))
                        .append(' ').append(r.done() ? '1' : '0');
            }
        }
        return b.toString();
    }

    /**
     * Reads a state string.
     *
     * @throws IllegalArgumentException naming the line that is not a state
     */
    static List<Table> decode(String state) {
        String[] lines = state.split("\n");
        if (!HEADER.equals(lines[0])) throw new IllegalArgumentException("not an incremental snapshot state (expected '" + HEADER + "' first)");
        List<Table> out = new ArrayList<>();
        String name = null;
        String condition = null;
        String surrogate = null;
        List<Range> ranges = null;
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(" ", -1);
            if (f[0].equals("t") && f.length == 4) {
                if (name != null) out.add(new Table(name, condition, surrogate, ranges));
                name = unfield(f[1]);
                condition = unfield(f[2]);
                surrogate = unfield(f[3]);
                ranges = null;
            } else if (f[0].equals("r") && f.length == 5 && name != null && (f[4].equals("0") || f[4].equals("1"))) {
                if (ranges == null) ranges = new ArrayList<>();
                ranges.add(new Range(unkey(f[1]), unkey(f[2]), unkey(f[3]), f[4].equals("1")));
            } else {
                throw new IllegalArgumentException("incremental snapshot state, line " + (i + 1) + ": not a table or range");
            }
        }
        if (name != null) out.add(new Table(name, condition, surrogate, ranges));
        return out;
    }

    private static String field(String s) {
        return s == null ? NONE : URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String unfield(String s) {
        return s.equals(NONE) ? null : URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static String key(List<String> k) {
        if (k == null) return NONE;
        StringBuilder b = new StringBuilder("k");
        for (String p : k) b.append(',').append(URLEncoder.encode(p, StandardCharsets.UTF_8));
        return b.toString();
    }

    private static List<String> unkey(String s) {
        if (s.equals(NONE)) return null;
        if (!s.startsWith("k")) throw new IllegalArgumentException("incremental snapshot state: bad key field");
        String[] p = s.split(",", -1);
        return Arrays.stream(p, 1, p.length).map(x -> URLDecoder.decode(x, StandardCharsets.UTF_8)).toList();
    }
}
