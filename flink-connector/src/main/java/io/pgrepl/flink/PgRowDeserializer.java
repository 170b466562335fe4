package io.pgrepl.flink;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.value.PgInterval;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Changes as {@link PgRow}s: one element per change, values decoded to plain Java types. Lists
 * become {@link ArrayList}s and intervals their text, so every value is one Flink's generic
 * serializer copies; the elements' type ({@link PgRowTypeInfo}) serializes them with it and copies
 * them itself.
 */
public final class PgRowDeserializer implements PgreplDeserializer<PgRow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(PgChange change, Collector<PgRow> out) {
        out.collect(new PgRow(change.op(), change.table(), values(change.before()), values(change.after()), change.commitLsn(),
                change.commitTimeMicros(), change.keyChanged()));
    }

    private static LinkedHashMap<String, Object> values(Tuple t) {
        if (t == null) return null;
        LinkedHashMap<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
            ColumnKind k = t.kind(i);
            if (k == ColumnKind.ABSENT || k == ColumnKind.UNCHANGED_TOAST) continue;
            m.put(t.name(i), plain(t.decode(i)));
        }
        return m;
    }

    private static Object plain(Object v) {
        if (v instanceof List<?> l) {
            List<Object> copy = new ArrayList<>(l.size());
            for (Object o : l) copy.add(plain(o));
            return copy;
        }
        if (v instanceof PgInterval || v instanceof io.pgrepl.codec.Lsn) return v.toString();
        return v;
    }

    @Override
    public TypeInformation<PgRow> getProducedType() {
        return new PgRowTypeInfo();
    }
}
