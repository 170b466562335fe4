package io.pgrepl.kafka.connect.values;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What pgoutput does not say about a column's type and Debezium's schemas need: pgoutput names a
 * type by OID only. Read from {@code pg_type} (and {@code pg_enum}): every array type (its element)
 * and every type that is not built in (enums with their labels, domains with their base type and
 * modifier, extension types such as hstore by name) once at task start, before the connection
 * streams; a type created later on first sight, on a short ordinary connection of its own (the
 * replication connection is busy streaming by then).
 */
public final class CatalogTypes {
    /** OIDs below this are built-in types. */
    static final int FIRST_NORMAL_OID = 16384;
    /**
     * A true array type: its element's array type (int2vector and oidvector have an element too,
     * but are not the array type of it, and their text is no array literal).
     */
    private static final String IS_ARRAY = "EXISTS (SELECT 1 FROM pg_catalog.pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid)";
    /** Arrays and every type that is not built in. */
    private static final String ALL = "SELECT t.oid, t.typtype, t.typname, t.typelem, " + IS_ARRAY + ", t.typbasetype,"
            + " t.typtypmod, (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_catalog.pg_enum e"
            + " WHERE e.enumtypid = t.oid) FROM pg_catalog.pg_type t";
    private static final String WHICH = " WHERE t.oid >= " + FIRST_NORMAL_OID + " OR " + IS_ARRAY;

    /**
     * One type.
     *
     * @param kind        {@code pg_type.typtype}: {@code b}ase, {@code c}omposite, {@code d}omain,
     *                    {@code e}num, {@code r}ange, {@code m}ultirange, {@code p}seudo
     * @param name        {@code typname}, as extension types are known by
     * @param element     the element type of an array type; 0 otherwise
     * @param base        a domain's base type; 0 otherwise
     * @param baseTypmod  a domain's type modifier ({@code typtypmod}; -1 for none)
     * @param enumLabels  an enum's labels, comma-separated in sort order; null otherwise
     */
    public record Type(int oid, char kind, String name, int element, int base, int baseTypmod, String enumLabels) {}

    /** Not in the catalog (dropped before it was looked up): treated as text. */
    private static final Type UNKNOWN = new Type(0, 'b', "", 0, 0, -1, null);

    /** Reads a type first met while streaming; null: types are only those given. */
    private final CatalogQuery later;
    private final Map<Integer, Type> types = new ConcurrentHashMap<>();

    private CatalogTypes(CatalogQuery later) {
        this.later = later;
    }

    /** Reads the types on {@code conn} (not yet streaming). */
    public static CatalogTypes load(CatalogQuery first, CatalogQuery later) {
        CatalogTypes t = new CatalogTypes(later);
        t.put(first.run(ALL + WHICH, "reading types"));
        return t;
    }

    /** Only {@code known} (no catalog to ask: any other type that is not built in is text); for tests. */
    public static CatalogTypes of(Type... known) {
        CatalogTypes t = new CatalogTypes(null);
        for (Type k : known) t.types.put(k.oid(), k);
        return t;
    }

    /** A catalogued type (an array, or a type that is not built in); null for any other built-in type. */
    Type get(int oid) {
        Type t = types.get(oid);
        if (t != null) return t == UNKNOWN ? null : t;
        if (Integer.compareUnsigned(oid, FIRST_NORMAL_OID) < 0 || later == null) return null;
        // Created after task start: asked once, then remembered either way.
        String id = Integer.toUnsignedString(oid);
        put(later.run(ALL + " WHERE t.oid = " + id, "reading type " + id));
        types.putIfAbsent(oid, UNKNOWN);
        t = types.get(oid);
        return t == UNKNOWN ? null : t;
    }

    /** The labels of type {@code oid}, comma-separated; null when it is not an enum. */
    String labels(int oid) {
        Type t = get(oid);
        return t == null ? null : t.enumLabels();
    }

    private void put(QueryResult r) {
        for (Row row : r.rows()) {
            int oid = Integer.parseUnsignedInt(row.get(0));
            boolean array = "t".equals(row.get(4));
            types.put(oid, new Type(oid, row.get(1).charAt(0), row.get(2), array ? Integer.parseUnsignedInt(row.get(3)) : 0,
                    Integer.parseUnsignedInt(row.get(5)), Integer.parseInt(row.get(6)), row.get(7)));
        }
    }
}
