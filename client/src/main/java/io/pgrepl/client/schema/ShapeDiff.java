package io.pgrepl.client.schema;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The difference between two Relation messages of one table, by column name, with renames taken
 * from captured DDL. pgoutput names columns but does not number them, so a rename looks like a
 * drop and an add; what tells them apart is that a column keeps its {@code attnum} (so its place
 * among the columns that survive) when renamed, while an added column always comes last. DDL
 * capture reports each {@code RENAME COLUMN} with the column's new name, and each dropped column
 * by name; within each stretch between surviving columns, renamed-to columns are paired in order
 * with the old columns that were neither kept nor reported dropped.
 */
final class ShapeDiff {
    private ShapeDiff() {}

    static SchemaChange between(SchemaChange.Kind kind, RelationInfo before, RelationInfo after, List<DdlCommand> ddl) {
        Set<String> renamedTo = new HashSet<>();
        Set<String> droppedByDdl = new HashSet<>();
        for (DdlCommand d : ddl) {
            if (d.isColumnRename()) renamedTo.add(d.column());
            if (d.isColumnDrop() && d.column() != null) droppedByDdl.add(d.column());
        }
        Map<String, ColumnInfo> old = new HashMap<>();
        for (ColumnInfo c : before.columns()) old.put(c.name(), c);
        Map<String, ColumnInfo> now = new HashMap<>();
        for (ColumnInfo c : after.columns()) now.put(c.name(), c);

        // A column survives under its name unless the DDL says that name was dropped or renamed to.
        Set<String> survivors = new HashSet<>();
        for (String n : old.keySet()) {
            if (now.containsKey(n) && !droppedByDdl.contains(n) && !renamedTo.contains(n)) survivors.add(n);
        }
        // Stretch number = survivors before the column; survivors keep their relative order (attnum).
        List<List<ColumnInfo>> gone = stretches(before, survivors, c -> !droppedByDdl.contains(c.name()));
        List<List<ColumnInfo>> targets = stretches(after, survivors, c -> renamedTo.contains(c.name()));
        List<ColumnChange> renamed = new ArrayList<>();
        Set<ColumnInfo> paired = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        if (sameOrder(before, after, survivors)) {
            for (int s = 0; s < Math.min(gone.size(), targets.size()); s++) {
                List<ColumnInfo> g = gone.get(s);
                List<ColumnInfo> t = targets.get(s);
                for (int i = 0; i < Math.min(g.size(), t.size()); i++) {
                    renamed.add(new ColumnChange(g.get(i), t.get(i)));
                    paired.add(g.get(i));
                    paired.add(t.get(i));
                }
            }
        }
        List<ColumnInfo> added = new ArrayList<>();
        for (ColumnInfo c : after.columns()) if (!survivors.contains(c.name()) && !paired.contains(c)) added.add(c);
        List<ColumnInfo> dropped = new ArrayList<>();
        for (ColumnInfo c : before.columns()) if (!survivors.contains(c.name()) && !paired.contains(c)) dropped.add(c);
        List<ColumnChange> retyped = new ArrayList<>();
        Map<String, String> newName = new HashMap<>();
        for (ColumnInfo c : before.columns()) {
            if (survivors.contains(c.name())) {
                newName.put(c.name(), c.name());
                ColumnInfo n = now.get(c.name());
                if (differentType(c, n)) retyped.add(new ColumnChange(c, n));
            }
        }
        for (ColumnChange r : renamed) {
            newName.put(r.before().name(), r.after().name());
            if (differentType(r.before(), r.after())) retyped.add(new ColumnChange(r.before(), r.after()));
        }
        List<String> oldKey = new ArrayList<>();
        for (ColumnInfo c : before.columns()) if (c.isKey()) oldKey.add(newName.getOrDefault(c.name(), "\0" + c.name()));
        List<String> newKey = new ArrayList<>();
        for (ColumnInfo c : after.columns()) if (c.isKey()) newKey.add(c.name());
        return new SchemaChange(kind, after.oid(), before, after, added, dropped, retyped, renamed, !oldKey.equals(newKey),
                before.replicaIdentity() != after.replicaIdentity(), ddl);
    }

    private static boolean differentType(ColumnInfo a, ColumnInfo b) {
        return a.typeOid() != b.typeOid() || a.typmod() != b.typmod();
    }

    /** The non-surviving columns matching {@code take}, grouped by how many survivors precede them. */
    private static List<List<ColumnInfo>> stretches(RelationInfo r, Set<String> survivors,
                                                    java.util.function.Predicate<ColumnInfo> take) {
        List<List<ColumnInfo>> out = new ArrayList<>();
        out.add(new ArrayList<>());
        for (ColumnInfo c : r.columns()) {
            if (survivors.contains(c.name())) out.add(new ArrayList<>());
            else if (take.test(c)) out.get(out.size() - 1).add(c);
        }
        return out;
    }

    private static boolean sameOrder(RelationInfo before, RelationInfo after, Set<String> survivors) {
        List<String> a = new ArrayList<>();
        for (ColumnInfo c : before.columns()) if (survivors.contains(c.name())) a.add(c.name());
        List<String> b = new ArrayList<>();
        for (ColumnInfo c : after.columns()) if (survivors.contains(c.name())) b.add(c.name());
        return a.equals(b);
    }
}
