package io.pgrepl.kafka.connect.values;

import io.pgrepl.client.Row;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * pg_type.typname of the types column.propagate.source.type and datatype.propagate.source.type
 * name (pgoutput's Relation message gives OIDs only): read from the catalog once per type, on a
 * connection of their own, when a table whose columns need them is first seen.
 */
public final class TypeNames {
    private final CatalogQuery catalog;
    private final Map<Integer, String> names = new ConcurrentHashMap<>();

    public TypeNames(CatalogQuery catalog) {
        this.catalog = catalog;
    }

    /** Reads the names of {@code oids} not yet known, in one query. */
    public void load(List<Integer> oids) {
        List<Integer> missing = oids.stream().filter(o -> !names.containsKey(o)).distinct().toList();
        if (missing.isEmpty()) return;
        String in = missing.stream().map(Integer::toUnsignedString).collect(Collectors.joining(","));
        for (Row r : catalog.run("SELECT oid, typname FROM pg_catalog.pg_type WHERE oid IN (" + in + ")",
                "reading type names").rows()) {
            names.put(Integer.parseUnsignedInt(r.get(0)), r.get(1));
        }
    }

    /** {@return the type's name, after {@link #load}} @throws IllegalStateException for a type the catalog does not have */
    public String name(int oid) {
        String n = names.get(oid);
        if (n == null) throw new IllegalStateException("type " + Integer.toUnsignedString(oid) + " is not in pg_type");
        return n;
    }
}
