package io.pgrepl.it.schema;

import io.pgrepl.client.schema.CatalogColumn;
import io.pgrepl.client.schema.ColumnChange;
import io.pgrepl.client.schema.DdlCommand;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.testkit.schema.ObservedChange;
import io.pgrepl.testkit.schema.SchemaScriptRun;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The library's events and rows in the neutral forms of the test kit's schema script. */
final class Observe {
    private Observe() {}

    static ObservedChange change(SchemaChange c) {
        Set<String> added = new LinkedHashSet<>();
        for (ColumnInfo a : c.added()) added.add(a.name());
        Set<String> dropped = new LinkedHashSet<>();
        for (ColumnInfo d : c.dropped()) dropped.add(d.name());
        Set<String> renamed = new LinkedHashSet<>();
        for (ColumnChange r : c.renamed()) renamed.add(r.before().name() + "->" + r.after().name());
        Set<String> retyped = new LinkedHashSet<>();
        for (ColumnChange r : c.retyped()) retyped.add(r.after().name());
        List<String> queries = new ArrayList<>();
        for (DdlCommand d : c.ddl()) queries.add(d.query());
        List<String> created = new ArrayList<>();
        if (c.kind() == SchemaChange.Kind.CREATE) {
            for (CatalogColumn col : c.ddl().get(0).table().columns()) {
                created.add(col.name() + ":" + Integer.toUnsignedString(col.typeOid()) + ":" + col.typmod());
            }
        }
        return new ObservedChange(c.kind().name(), c.relationId(), c.schema(), c.table(), describe(c.before()), describe(c.after()),
                added, dropped, renamed, retyped, c.keyChanged(), c.replicaIdentityChanged(), SchemaScriptRun.dedupe(queries), created);
    }

    static List<String> describe(RelationInfo r) {
        if (r == null) return null;
        List<String> out = new ArrayList<>();
        for (ColumnInfo c : r.columns()) {
            out.add(c.name() + ":" + Integer.toUnsignedString(c.typeOid()) + ":" + c.typmod() + ":" + (c.isKey() ? 1 : 0));
        }
        return out;
    }

    /** A handler-face tuple's columns with a value or NULL (key columns only for a key tuple; unchanged TOAST left out). */
    static Map<String, String> values(TupleView t, boolean keyOnly) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < t.columnCount(); i++) {
            if (keyOnly && !t.column(i).isKey()) continue;
            if (t.isUnchangedToast(i)) continue;
            m.put(t.column(i).name(), t.isNull(i) ? null : t.text(i));
        }
        return m;
    }

    /** The same for a record's tuple, with its relation for the key flags. */
    static Map<String, String> values(Tuple t, RelationInfo relation, boolean keyOnly) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < t.size(); i++) {
            if (keyOnly && !relation.column(i).isKey()) continue;
            ColumnKind k = t.kind(i);
            if (k == ColumnKind.UNCHANGED_TOAST) continue;
            m.put(t.name(i), t.hasValue(i) ? t.text(i) : null);
        }
        return m;
    }
}
