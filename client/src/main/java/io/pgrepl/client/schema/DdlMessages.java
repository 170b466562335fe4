package io.pgrepl.client.schema;

import io.pgrepl.client.internal.JsonReader;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON content of a DDL capture message (the script's {@code pgrepl.ddl_command_end()}
 * and {@code pgrepl.ddl_sql_drop()} build it; docs/schema-changes.md shows one). Fields pgrepl does
 * not know are ignored, so a newer script's additions do not break an older reader; a missing or
 * mistyped field it needs is an error naming the field.
 */
final class DdlMessages {
    /** The version of the message format this reader understands. */
    static final int VERSION = 1;
    /** A multi-statement query string can be long; the frame limit bounds it anyway. */
    private static final JsonReader JSON = new JsonReader(1 << 28, 16);

    private DdlMessages() {}

    /**
     * One parsed message. {@code sameQuery}: the message left its query text out because an earlier
     * message of the same query string in the same transaction carried it.
     */
    record Parsed(DdlCommand command, boolean sameQuery) {}

    static Parsed parse(String content) {
        Object v;
        try {
            v = JSON.read(content);
        } catch (JsonReader.JsonException e) {
            throw new MalformedDdlMessageException("DDL capture message is not JSON: " + e.getMessage(), e);
        }
        if (!(v instanceof Map<?, ?> m)) throw new MalformedDdlMessageException("DDL capture message is not a JSON object");
        int version = integer(m, "v", true);
        if (version != VERSION) {
            throw new MalformedDdlMessageException("DDL capture message has version " + version + "; this pgrepl reads version "
                    + VERSION + " (reinstall the capture with this pgrepl: pgrepl ddl install)");
        }
        String event = string(m, "event", true);
        boolean same = Boolean.TRUE.equals(m.get("same_query"));
        if (event.equals(DdlCommand.DDL_COMMAND_START)) {
            return new Parsed(new DdlCommand(event, string(m, "tag", true), "table", null, null, null, 0, 0, null, string(m, "query", false),
                    null, List.of()), same);
        }
        if (!event.equals(DdlCommand.DDL_COMMAND_END) && !event.equals(DdlCommand.SQL_DROP)) {
            throw new MalformedDdlMessageException("DDL capture message has an unknown \"event\": " + event);
        }
        Object t = m.get("table");
        CatalogTable table = t == null ? null : table(map(t, "table"));
        DdlCommand c = new DdlCommand(event, string(m, "tag", true), string(m, "object_type", true), string(m, "schema", true),
                string(m, "name", true), string(m, "identity", true), integer(m, "oid", true), integer(m, "attnum", false),
                string(m, "column", false), string(m, "query", false), table, strings(m, "publications"));
        return new Parsed(c, same);
    }

    private static CatalogTable table(Map<?, ?> t) {
        List<CatalogColumn> cols = new ArrayList<>();
        Object cs = t.get("columns");
        if (!(cs instanceof List<?> list)) throw new MalformedDdlMessageException("DDL capture message: \"table.columns\" is not an array");
        for (Object o : list) {
            Map<?, ?> c = map(o, "table.columns[]");
            cols.add(new CatalogColumn(integer(c, "attnum", true), string(c, "name", true), string(c, "type", true),
                    integer(c, "type_oid", true), integer(c, "typmod", true), Boolean.TRUE.equals(c.get("not_null")),
                    string(c, "default", false), Boolean.TRUE.equals(c.get("generated"))));
        }
        return new CatalogTable(string(t, "schema", true), string(t, "name", true), character(t, "kind"),
                character(t, "replica_identity"), cols, strings(t, "primary_key"));
    }

    private static Map<?, ?> map(Object o, String field) {
        if (o instanceof Map<?, ?> m) return m;
        throw new MalformedDdlMessageException("DDL capture message: \"" + field + "\" is not an object");
    }

    private static String string(Map<?, ?> m, String field, boolean required) {
        Object o = m.get(field);
        if (o == null) {
            if (required) throw new MalformedDdlMessageException("DDL capture message has no \"" + field + "\"");
            return null;
        }
        if (o instanceof String s) return s;
        throw new MalformedDdlMessageException("DDL capture message: \"" + field + "\" is not a string");
    }

    private static char character(Map<?, ?> m, String field) {
        String s = string(m, field, true);
        if (s.length() != 1) throw new MalformedDdlMessageException("DDL capture message: \"" + field + "\" is not one character");
        return s.charAt(0);
    }

    /** OIDs are unsigned 32-bit: kept in an int as PostgreSQL's wire format does. */
    private static int integer(Map<?, ?> m, String field, boolean required) {
        Object o = m.get(field);
        if (o == null) {
            if (required) throw new MalformedDdlMessageException("DDL capture message has no \"" + field + "\"");
            return 0;
        }
        if (o instanceof BigDecimal d) {
            try {
                long l = d.longValueExact();
                if (l >= Integer.MIN_VALUE && l <= 0xFFFF_FFFFL) return (int) l;
            } catch (ArithmeticException ignored) {
                // not an integer: the error below
            }
        }
        throw new MalformedDdlMessageException("DDL capture message: \"" + field + "\" is not a 32-bit integer");
    }

    private static List<String> strings(Map<?, ?> m, String field) {
        Object o = m.get(field);
        if (o == null) return List.of();
        if (!(o instanceof List<?> l)) throw new MalformedDdlMessageException("DDL capture message: \"" + field + "\" is not an array");
        List<String> out = new ArrayList<>(l.size());
        for (Object e : l) {
            if (!(e instanceof String s)) throw new MalformedDdlMessageException("DDL capture message: \"" + field + "\" holds a non-string");
            out.add(s);
        }
        return out;
    }
}
