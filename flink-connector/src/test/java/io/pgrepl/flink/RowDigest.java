package io.pgrepl.flink;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.Tuple;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * A change reduced to what a large table's check needs: the old and new keys and a 64-bit digest
 * of each row's text (the server's own text output, every column in a fixed order), plus the row's
 * version column. A snapshot of a million rows then crosses the job and the collector in a few
 * bytes per row, and the materialized table is a map of keys to digests. Stream changes also carry
 * the new row's text, for failure messages. A Flink POJO.
 */
public class RowDigest {
    /** Stands for SQL NULL in a row's text; PostgreSQL text values cannot hold U+0000. */
    static final char NULL = '\u0000';
    /** Separates the columns in a row's text. */
    static final char SEPARATOR = '\u001f';

    public String op;
    public boolean hasOld;
    public long oldKey;
    public long oldDigest;
    public boolean hasNew;
    public long newKey;
    public long newDigest;
    /** The new row's version column ({@code n}), or -1. */
    public long n = -1;
    /** The new row's text, for stream changes only. */
    public String text;

    public RowDigest() {}

    /** The row as one text: the columns' texts in {@code columns} order. */
    static String text(List<String> columns, List<String> values) {
        StringBuilder b = new StringBuilder(160);
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) b.append(SEPARATOR);
            String v = values.get(i);
            if (v == null) b.append(NULL);
            else b.append(v);
        }
        return b.toString();
    }

    /** FNV-1a over the UTF-16 units, then MurmurHash3's 64-bit finalizer to spread it. */
    static long digest(String text) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            h ^= text.charAt(i);
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** The deserializer: {@code columns} in the order the row texts are built in, {@code key} a bigint column among them. */
    public static final class Deserializer implements PgreplDeserializer<RowDigest> {
        private static final long serialVersionUID = 1L;
        private final List<String> columns;
        private final String key;

        Deserializer(List<String> columns, String key) {
            this.columns = List.copyOf(columns);
            this.key = key;
        }

        @Override
        public void deserialize(PgChange change, Collector<RowDigest> out) {
            RowDigest d = new RowDigest();
            d.op = change.op().name();
            if (change.before() != null) {
                if (!change.wholeBefore()) throw new AssertionError("an old row that is not whole: " + change);
                String t = rowText(change.before(), change);
                d.hasOld = true;
                d.oldKey = Long.parseLong(value(change.before(), key, change));
                d.oldDigest = digest(t);
            }
            if (change.after() != null) {
                String t = rowText(change.after(), change);
                d.hasNew = true;
                d.newKey = Long.parseLong(value(change.after(), key, change));
                d.newDigest = digest(t);
                d.n = Long.parseLong(value(change.after(), "n", change));
                if (change.op() != PgChange.Op.READ) d.text = t;
            }
            out.collect(d);
        }

        private String rowText(Tuple t, PgChange change) {
            java.util.ArrayList<String> values = new java.util.ArrayList<>(columns.size());
            for (String c : columns) values.add(value(t, c, change));
            return text(columns, values);
        }

        private static String value(Tuple t, String column, PgChange change) {
            for (int i = 0; i < t.size(); i++) {
                if (!t.name(i).equals(column)) continue;
                ColumnKind k = t.kind(i);
                if (k == ColumnKind.NULL) return null;
                if (k != ColumnKind.TEXT) throw new AssertionError("column " + column + " of " + change + " came as " + k);
                return t.text(i);
            }
            throw new AssertionError("no column " + column + " in " + change);
        }

        @Override
        public TypeInformation<RowDigest> getProducedType() {
            return TypeInformation.of(RowDigest.class);
        }
    }

    @Override
    public String toString() {
        return op + (hasOld ? " old key " + oldKey : "") + (hasNew ? " new key " + newKey + " n " + n : "") + (text == null ? "" : " " + shown(text));
    }

    /** A row's text for messages: columns between bars, NULL as ∅, long values cut to their first 40 characters. */
    static String shown(String rowText) {
        StringBuilder b = new StringBuilder();
        String[] values = rowText.split(String.valueOf(SEPARATOR), -1);
        for (int i = 0; i < values.length; i++) {
            String v = values[i];
            if (i > 0) b.append('|');
            if (v.equals(String.valueOf(NULL))) b.append('∅');
            else if (v.length() > 40) b.append(v, 0, 40).append("...(").append(v.length()).append(" chars)");
            else b.append(v);
        }
        return b.toString();
    }
}
