package io.pgrepl.flink;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.Tuple;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * A change with its rows as the server's own text output (what pgoutput and COPY sent), so a test
 * compares them with {@code SELECT} text from the server byte for byte, without the code under
 * test decoding anything. A Flink POJO.
 */
public class TextChange {
    public String op;
    public String table;
    public HashMap<String, String> before;
    public HashMap<String, String> after;
    public long commitLsn;

    public TextChange() {}

    static HashMap<String, String> texts(Tuple t) {
        if (t == null) return null;
        HashMap<String, String> m = new HashMap<>();
        for (int i = 0; i < t.size(); i++) {
            if (t.kind(i) == ColumnKind.ABSENT) continue;
            if (t.kind(i) == ColumnKind.UNCHANGED_TOAST) throw new AssertionError("unchanged TOAST reached the deserializer");
            m.put(t.name(i), t.text(i));
        }
        return m;
    }

    /** The deserializer. */
    public static final class Deserializer implements PgreplDeserializer<TextChange> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(PgChange change, Collector<TextChange> out) {
            TextChange c = new TextChange();
            c.op = change.op().name();
            c.table = change.table().toString();
            c.before = texts(change.before());
            c.after = texts(change.after());
            c.commitLsn = change.commitLsn();
            out.collect(c);
        }

        @Override
        public TypeInformation<TextChange> getProducedType() {
            return TypeInformation.of(TextChange.class);
        }
    }

    String key(String column) {
        Map<String, String> row = after != null ? after : before;
        return row.get(column);
    }

    @Override
    public String toString() {
        return op + " " + table + " before=" + before + " after=" + after;
    }
}
