package io.pgrepl.kafka.connect.settings;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Debezium's column settings, read once per configuration and applied per table: column
 * include/exclude lists, masks, hashes, truncation and message.key.columns. Column names are
 * {@code schema.table.column}, matched whole and ignoring case, as Debezium matches them. Every
 * rule that matches a column applies (a mask or hash replaces the value, truncation cuts it);
 * Debezium applies only the first that matches.
 */
public final class ColumnRules {
    public static final String INCLUDE = "column.include.list";
    public static final String EXCLUDE = "column.exclude.list";
    public static final String KEY_COLUMNS = "message.key.columns";

    private static final Pattern MASK = Pattern.compile("column\\.mask\\.with\\.(\\d+)\\.chars");
    private static final Pattern HASH = Pattern.compile("column\\.mask\\.hash\\.(?:(v2)\\.)?([^.]+)\\.with\\.salt\\.(.+)");
    private static final Pattern TRUNCATE = Pattern.compile("column\\.truncate\\.to\\.(\\d+)\\.chars");
    public static final String PROPAGATE_COLUMNS = "column.propagate.source.type";
    public static final String PROPAGATE_TYPES = "datatype.propagate.source.type";
    private static final String TYPE = "__debezium.source.column.type";
    private static final String LENGTH = "__debezium.source.column.length";
    private static final String SCALE = "__debezium.source.column.scale";
    private static final String NAME = "__debezium.source.column.name";
    private static final int NUMERIC = 1700;
    private static final int BIT = 1560;
    private static final int VARBIT = 1562;

    /** Types whose values a mask or hash replaces: char(n), varchar(n) and text, as Debezium's masks take character columns. */
    private static final int TEXT = 25;
    private static final int BPCHAR = 1042;
    private static final int VARCHAR = 1043;

    private record Mask(RegexList columns, String with) {}

    private record Hash(RegexList columns, Hashing hashing) {}

    private record Truncate(RegexList columns, int length) {}

    private final RegexList include;
    private final RegexList exclude;
    private final List<Mask> masks;
    private final List<Hash> hashes;
    private final List<Truncate> truncates;
    private final KeyColumns keys;
    private final RegexList propagateColumns;
    private final RegexList propagateTypes;

    private ColumnRules(RegexList include, RegexList exclude, List<Mask> masks, List<Hash> hashes, List<Truncate> truncates,
                        KeyColumns keys, RegexList propagateColumns, RegexList propagateTypes) {
        this.propagateColumns = propagateColumns;
        this.propagateTypes = propagateTypes;
        this.include = include;
        this.exclude = exclude;
        this.masks = masks;
        this.hashes = hashes;
        this.truncates = truncates;
        this.keys = keys;
    }

    public static ConfigDef define(ConfigDef d) {
        return d
                .define(INCLUDE, Type.LIST, "", Importance.MEDIUM, "Regular expressions for schema.table.column names to send"
                        + " (whole name, ignoring case); the others are left out of before and after. Excludes " + EXCLUDE + ".")
                .define(EXCLUDE, Type.LIST, "", Importance.MEDIUM, "Regular expressions for schema.table.column names to leave"
                        + " out of before and after (a key column stays in the key, as in Debezium).")
                .define(KEY_COLUMNS, Type.STRING, null, Importance.LOW, "<schema.table regex>:<column>,<column>;... : the"
                        + " record key's columns for the tables matched, instead of the replica identity.")
                .define(PROPAGATE_COLUMNS, Type.LIST, "", Importance.LOW, "Regular expressions for schema.table.column names"
                        + " whose field schemas get Debezium's __debezium.source.column.* parameters (type, length, scale, name).")
                .define(PROPAGATE_TYPES, Type.LIST, "", Importance.LOW, "Regular expressions for schema.table.typename"
                        + " (pg_type.typname): the columns of those types get the same parameters.");
    }

    /** {@return the rules of a configuration's settings} @throws IllegalArgumentException naming the first bad one */
    public static ColumnRules from(Map<String, ?> props) {
        RegexList include = regexes(INCLUDE, props.get(INCLUDE));
        RegexList exclude = regexes(EXCLUDE, props.get(EXCLUDE));
        if (!include.isEmpty() && !exclude.isEmpty()) {
            throw new Refused(EXCLUDE, INCLUDE + " and " + EXCLUDE + " cannot both be set (as in Debezium): keep one");
        }
        List<Mask> masks = new ArrayList<>();
        List<Hash> hashes = new ArrayList<>();
        List<Truncate> truncates = new ArrayList<>();
        for (Map.Entry<String, ?> e : props.entrySet()) {
            String key = e.getKey();
            Matcher m;
            if ((m = MASK.matcher(key)).matches()) {
                masks.add(new Mask(columns(key, e.getValue()), "*".repeat(length(key, m.group(1)))));
            } else if ((m = HASH.matcher(key)).matches()) {
                try {
                    hashes.add(new Hash(columns(key, e.getValue()), new Hashing(m.group(2), m.group(3), m.group(1) != null)));
                } catch (Refused bad) {
                    throw bad;
                } catch (IllegalArgumentException bad) {
                    // The salt is a secret: the key is named without it.
                    throw new Refused(key, key.substring(0, key.indexOf(".with.salt.")) + ".with.salt.[hidden]: " + bad.getMessage());
                }
            } else if ((m = TRUNCATE.matcher(key)).matches()) {
                truncates.add(new Truncate(columns(key, e.getValue()), length(key, m.group(1))));
            }
        }
        KeyColumns keys;
        try {
            Object k = props.get(KEY_COLUMNS);
            keys = KeyColumns.parse(k == null ? null : k.toString());
        } catch (RuntimeException bad) {
            throw new Refused(KEY_COLUMNS, KEY_COLUMNS + ": " + bad.getMessage());
        }
        return new ColumnRules(include, exclude, List.copyOf(masks), List.copyOf(hashes), List.copyOf(truncates), keys,
                regexes(PROPAGATE_COLUMNS, props.get(PROPAGATE_COLUMNS)), regexes(PROPAGATE_TYPES, props.get(PROPAGATE_TYPES)));
    }

    /** A refused setting, with its key. */
    static final class Refused extends IllegalArgumentException {
        final String key;

        Refused(String key, String message) {
            super(message);
            this.key = key;
        }
    }

    /** {@return the settings' problems by key, for validation} */
    static Map<String, List<String>> problems(Map<String, ?> props) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try {
            from(props);
        } catch (Refused e) {
            out.computeIfAbsent(e.key, x -> new ArrayList<>()).add(e.getMessage());
        }
        return out;
    }

    /** {@return whether no rule is set} */
    public boolean isEmpty() {
        return include.isEmpty() && exclude.isEmpty() && masks.isEmpty() && hashes.isEmpty() && truncates.isEmpty()
                && keys.entries().isEmpty() && propagateColumns.isEmpty() && propagateTypes.isEmpty();
    }

    /** {@return the setting that leaves column {@code schema.table.column} out of the records, or null} */
    public String excludedBy(String schema, String table, String column) {
        String name = schema + "." + table + "." + column;
        if (exclude.matches(name)) return EXCLUDE;
        return !include.isEmpty() && !include.matches(name) ? INCLUDE : null;
    }

    /** {@return whether message.key.columns names any table} */
    public boolean keyColumnsSet() {
        return !keys.entries().isEmpty();
    }

    /**
     * The shape of table {@code schema.table} with {@code columns} (a Relation message's).
     *
     * @throws IllegalStateException for a mask or hash on a column that is not char, varchar or text
     *         (Debezium sends those unmasked), or a message.key.columns column the table does not have
     */
    public TableShape table(String schema, String table, List<ColumnInfo> columns) {
        return table(schema, table, columns, oid -> {
            throw new IllegalStateException("no type names");
        });
    }

    /** {@return whether {@link #table} asks for type names (the propagate settings are set)} */
    public boolean needsTypeNames() {
        return !propagateColumns.isEmpty() || !propagateTypes.isEmpty();
    }

    /**
     * As above; {@code typeName} gives pg_type.typname of a column's type, for the propagate settings.
     */
    @SuppressWarnings("unchecked")
    public TableShape table(String schema, String table, List<ColumnInfo> columns, java.util.function.IntFunction<String> typeName) {
        if (isEmpty()) return TableShape.NONE;
        String qualified = schema + "." + table;
        int n = columns.size();
        boolean[] excluded = new boolean[n];
        UnaryOperator<Object>[] transforms = new UnaryOperator[n];
        Map<String, String>[] parameters = new Map[n];
        for (int i = 0; i < n; i++) {
            ColumnInfo c = columns.get(i);
            String name = qualified + "." + c.name();
            excluded[i] = exclude.matches(name) || (!include.isEmpty() && !include.matches(name));
            int length = declaredLength(c);
            UnaryOperator<Object> f = null;
            Map<String, String> p = new LinkedHashMap<>();
            for (Truncate t : truncates) {
                if (!t.columns().matches(name) || (length >= 0 && length <= t.length())) continue;
                int max = t.length();
                f = v -> truncated(v, max);
                p.put("truncateLength", Integer.toString(max));
                break;
            }
            UnaryOperator<Object> replace = null;
            for (Hash h : hashes) {
                if (!h.columns().matches(name)) continue;
                requireCharacter(c, name, "column.mask.hash");
                Hashing hashing = h.hashing();
                int cut = Math.max(length, 0);
                replace = v -> v == null ? null : hashing.hash(v.toString(), cut);
                break;
            }
            for (Mask m : masks) {
                if (replace != null || !m.columns().matches(name)) continue;
                requireCharacter(c, name, "column.mask.with");
                String with = m.with();
                replace = v -> v == null ? null : with;
                break;
            }
            if (replace != null) {
                f = replace; // a replaced value needs no truncation, and no truncated value may be hashed
                p.put("masked", "true");
            }
            if (!propagateColumns.isEmpty() || !propagateTypes.isEmpty()) {
                String type = null;
                boolean propagate = propagateColumns.matches(name);
                if (!propagate && !propagateTypes.isEmpty()) {
                    type = typeName.apply(c.typeOid());
                    propagate = propagateTypes.matches(qualified + "." + type);
                }
                if (propagate) sourceType(c, type != null ? type : typeName.apply(c.typeOid()), p);
            }
            transforms[i] = f;
            parameters[i] = p.isEmpty() ? null : Map.copyOf(p);
        }
        List<String> key = keys.of(qualified);
        if (key != null) {
            List<String> resolved = new ArrayList<>();
            for (String k : key) {
                ColumnInfo found = columns.stream().filter(c -> c.name().equals(k)).findFirst()
                        .or(() -> columns.stream().filter(c -> c.name().equalsIgnoreCase(k)).findFirst())
                        .orElseThrow(() -> new IllegalStateException(KEY_COLUMNS + " names column \"" + k + "\" of "
                                + qualified + ", which has no such column"));
                resolved.add(found.name());
            }
            key = List.copyOf(resolved);
        }
        boolean none = key == null;
        for (int i = 0; i < n && none; i++) none = !excluded[i] && transforms[i] == null && parameters[i] == null;
        return none ? TableShape.NONE : new TableShape(excluded, transforms, parameters, key);
    }

    /** Debezium's source type parameters: the type's name in upper case, the declared length and scale, the column's name. */
    private static void sourceType(ColumnInfo c, String type, Map<String, String> p) {
        p.put(TYPE, type.toUpperCase(java.util.Locale.ROOT));
        int t = c.typeOid();
        int m = c.typmod();
        if ((t == VARCHAR || t == BPCHAR) && m >= 4) {
            p.put(LENGTH, Integer.toString(m - 4));
        } else if ((t == BIT || t == VARBIT) && m >= 0) {
            p.put(LENGTH, Integer.toString(m));
        } else if (t == NUMERIC && m >= 4) {
            p.put(LENGTH, Integer.toString((m - 4) >> 16));
            p.put(SCALE, Integer.toString((short) ((m - 4) & 0xffff)));
        }
        p.put(NAME, c.name());
    }

    private static void requireCharacter(ColumnInfo c, String name, String setting) {
        int t = c.typeOid();
        if (t != TEXT && t != VARCHAR && t != BPCHAR) {
            throw new IllegalStateException(setting + "... matches " + name + " (type OID " + t + "), which is not char,"
                    + " varchar or text: Debezium would send its value unmasked, pgrepl refuses to; narrow the expression,"
                    + " or leave the column out with " + EXCLUDE);
        }
    }

    /** char(n) and varchar(n): n; anything else unbounded (-1). */
    private static int declaredLength(ColumnInfo c) {
        return (c.typeOid() == VARCHAR || c.typeOid() == BPCHAR) && c.typmod() >= 4 ? c.typmod() - 4 : -1;
    }

    /**
     * Text is cut to {@code max} UTF-16 units, as Debezium cuts it, so it is never longer than
     * Debezium's; a pair the cut would split is left out whole (Debezium keeps its high surrogate,
     * which no encoder can write as UTF-8).
     */
    static Object truncated(Object v, int max) {
        if (v instanceof String s) {
            if (s.length() <= max) return s;
            int end = max > 0 && Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
            return s.substring(0, end);
        }
        if (v instanceof ByteBuffer b && b.remaining() > max) {
            ByteBuffer d = b.duplicate();
            byte[] out = new byte[max];
            d.get(out);
            return ByteBuffer.wrap(out);
        }
        return v;
    }

    private static RegexList columns(String key, Object value) {
        List<String> l = list(value);
        String shown = key.contains(".with.salt.") ? key.substring(0, key.indexOf(".with.salt.")) + ".with.salt.[hidden]" : key;
        if (l.isEmpty()) throw new Refused(key, shown + " names no columns: give schema.table.column expressions");
        try {
            return RegexList.of(l);
        } catch (RuntimeException e) {
            throw new Refused(key, shown + " is not a list of regular expressions: " + e.getMessage());
        }
    }

    private static RegexList regexes(String key, Object value) {
        try {
            return RegexList.of(list(value));
        } catch (RuntimeException e) {
            throw new Refused(key, key + " is not a list of regular expressions: " + e.getMessage());
        }
    }

    private static int length(String key, String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new Refused(key, key + ": " + digits + " is too large");
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Object v) {
        if (v == null) return List.of();
        if (v instanceof List<?> l) return (List<String>) l;
        String s = v.toString().trim();
        return s.isEmpty() ? List.of() : Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }
}
