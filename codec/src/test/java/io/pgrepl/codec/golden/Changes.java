package io.pgrepl.codec.golden;

import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The common language of the oracle comparison: one line per change, table names unquoted,
 * each column as {@code name[type]=value} where value is a quoted string, {@code NULL} or
 * {@code TOAST} (unchanged, not sent). Old tuples leave NULL columns out, as test_decoding does.
 */
final class Changes {
    static final String BEGIN = "BEGIN";
    static final String COMMIT = "COMMIT";

    private Changes() {}

    record Col(String name, String type, State state, String value) {
        enum State { VALUE, NULL, TOAST }

        static Col value(String name, String type, String value) {
            return new Col(name, type, State.VALUE, value);
        }

        static Col nul(String name, String type) {
            return new Col(name, type, State.NULL, null);
        }

        static Col toast(String name, String type) {
            return new Col(name, type, State.TOAST, null);
        }

        String render() {
            String v = switch (state) {
                case NULL -> "NULL";
                case TOAST -> "TOAST";
                case VALUE -> "'" + value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
                        .replace("\r", "\\r").replace("\t", "\\t") + "'";
            };
            return name + "[" + type + "]=" + v;
        }
    }

    /** {@code old} and {@code neu} may be null (absent). */
    static String change(String op, String table, List<Col> old, List<Col> neu) {
        StringBuilder sb = new StringBuilder(op).append(' ').append(table);
        if (old != null) {
            sb.append(" old:");
            for (Col c : old) if (c.state() != Col.State.NULL) sb.append(' ').append(c.render());
        }
        if (neu != null) {
            sb.append(" new:");
            for (Col c : neu) sb.append(' ').append(c.render());
        }
        return sb.toString();
    }

    static String truncate(List<String> tables, boolean cascade, boolean restartIdentity) {
        // Sorted: the order of the OIDs is not something either side promises.
        return "TRUNCATE " + tables.stream().sorted().collect(Collectors.joining(","))
                + (cascade ? " cascade" : "") + (restartIdentity ? " restart_seqs" : "");
    }

    static String message(boolean transactional, String prefix, byte[] content) {
        return "MESSAGE " + (transactional ? "tx" : "non-tx") + " " + prefix + " " + HexFormat.of().formatHex(content);
    }
}
