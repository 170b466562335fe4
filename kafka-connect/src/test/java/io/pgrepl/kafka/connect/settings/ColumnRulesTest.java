package io.pgrepl.kafka.connect.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.debezium.relational.Column;
import io.debezium.relational.ColumnFilterMode;
import io.debezium.relational.Tables;
import io.debezium.relational.TableId;
import io.debezium.relational.mapping.ColumnMappers;
import io.debezium.relational.mapping.MaskStrings;
import io.debezium.relational.mapping.PropagateSourceMetadataToSchemaParameter;
import io.debezium.relational.mapping.TruncateColumn;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

/** The column settings against Debezium 3.6.1's own classes: the same names match, the same values come out. */
class ColumnRulesTest {
    private static final int TEXT = 25;
    private static final int VARCHAR = 1043;
    private static final int INT4 = 23;
    private static final List<String> VALUES = List.of("", "abc", "it's \"q\" ünï 漢字 😀", "x".repeat(300));

    private static TableShape shape(Map<String, String> settings, ColumnInfo... columns) {
        return ColumnRules.from(settings).table("public", "Orders", List.of(columns));
    }

    /** Debezium's Column for pgrepl's: character columns as Debezium's PostgreSQL connector types them. */
    private static Column debezium(ColumnInfo c) {
        int length = c.typeOid() == VARCHAR ? c.typmod() - 4 : Integer.MAX_VALUE;
        return Column.editor().name(c.name()).type(c.typeOid() == VARCHAR ? "varchar" : "text").jdbcType(Types.VARCHAR)
                .length(length).create();
    }

    @Test
    void hashesEqualDebeziums() {
        ColumnInfo text = new ColumnInfo(0, "secret", TEXT, -1);
        ColumnInfo short10 = new ColumnInfo(0, "code", VARCHAR, 14);
        for (String algorithm : List.of("SHA-256", "MD5", "SHA-512")) {
            for (boolean v2 : List.of(false, true)) {
                String salt = "s.a;lt ü";
                Map<String, String> s = new HashMap<>();
                s.put("column.mask.hash." + (v2 ? "v2." : "") + algorithm + ".with.salt." + salt, "public.orders.secret,public.orders.code");
                TableShape shape = shape(s, text, short10);
                MaskStrings theirs = new MaskStrings(salt.getBytes(StandardCharsets.UTF_8), algorithm,
                        v2 ? MaskStrings.HashingByteArrayStrategy.V2 : MaskStrings.HashingByteArrayStrategy.V1);
                for (String v : VALUES) {
                    assertEquals(theirs.create(debezium(text)).convert(v), shape.transform(0).apply(v), algorithm + " " + v2 + " " + v);
                    assertEquals(theirs.create(debezium(short10)).convert(v), shape.transform(1).apply(v), algorithm + " " + v2);
                }
                SchemaBuilder b = SchemaBuilder.string();
                theirs.alterFieldSchema(debezium(text), b);
                assertEquals(b.parameters(), shape.parameters(0));
            }
        }
    }

    @Test
    void masksEqualDebeziums() {
        ColumnInfo text = new ColumnInfo(0, "secret", TEXT, -1);
        TableShape shape = shape(Map.of("column.mask.with.7.chars", "public\\.orders\\.secret"), text);
        MaskStrings theirs = new MaskStrings("*******");
        for (String v : VALUES) assertEquals(theirs.create(debezium(text)).convert(v), shape.transform(0).apply(v));
        SchemaBuilder b = SchemaBuilder.string();
        theirs.alterFieldSchema(debezium(text), b);
        assertEquals(b.parameters(), shape.parameters(0));
    }

    @Test
    void truncationEqualsDebeziums() {
        ColumnInfo text = new ColumnInfo(0, "note", TEXT, -1);
        ColumnInfo short3 = new ColumnInfo(0, "code", VARCHAR, 7);
        TableShape shape = shape(Map.of("column.truncate.to.5.chars", "public.orders.note,public.orders.code"), text, short3);
        TruncateColumn theirs = new TruncateColumn(5);
        for (String v : List.of("", "abc", "abcdefgh", "ünïcødé")) {
            assertEquals(theirs.create(debezium(text)).convert(v), shape.transform(0).apply(v), v);
        }
        SchemaBuilder b = SchemaBuilder.string();
        theirs.alterFieldSchema(debezium(text), b);
        assertEquals(b.parameters(), shape.parameters(0));
        // varchar(3) cannot exceed 5: nothing to cut, no parameter (Debezium: truncation not possible).
        assertEquals(null, shape.transform(1));
        assertEquals(Map.of(), shape.parameters(1));
    }

    /**
     * Characters outside the BMP: Debezium's cut of N UTF-16 units, but where that would leave the
     * high half of a pair, one unit shorter (never longer than Debezium's, never a lone surrogate).
     */
    @Test
    void truncationCutsUtf16UnitsWithoutSplittingAPair() {
        ColumnInfo text = new ColumnInfo(0, "note", TEXT, -1);
        for (int n = 0; n <= 7; n++) {
            TableShape shape = shape(Map.of("column.truncate.to." + n + ".chars", "public.orders.note"), text);
            var theirs = new TruncateColumn(n).create(debezium(text));
            for (String v : List.of("bi😀o-graphy", "😀😀x😀", "a😀", "ünï")) {
                String d = (String) theirs.convert(v);
                String p = (String) shape.transform(0).apply(v);
                boolean split = !d.isEmpty() && Character.isHighSurrogate(d.charAt(d.length() - 1));
                assertEquals(split ? d.substring(0, d.length() - 1) : d, p, n + " of " + v);
            }
        }
        TableShape five = shape(Map.of("column.truncate.to.5.chars", "public.orders.note"), text);
        assertEquals("bi😀o", five.transform(0).apply("bi😀o-graphy"));
        TableShape three = shape(Map.of("column.truncate.to.3.chars", "public.orders.note"), text);
        assertEquals("bi", three.transform(0).apply("bi😀o-graphy")); // Debezium: "bi" and a lone high surrogate
    }

    @Test
    void includeAndExcludeListsMatchTheColumnsDebeziumsDo() {
        List<String[]> names = List.of(new String[] {"public", "Orders", "Secret"}, new String[] {"public", "orders", "secret_x"},
                new String[] {"public", "orders", "id"}, new String[] {"My Schema", "t.x", "c"}, new String[] {"sales", "orders", "secret"});
        for (String regexes : List.of("public\\.orders\\.secret", "public\\.orders\\.sec.*", ".*\\.id,sales\\..*",
                "my schema\\.t\\.x\\.c", "public.orders.secret")) {
            Tables.ColumnNameFilter include = Tables.ColumnNameFilterFactory.createIncludeListFilter(regexes, ColumnFilterMode.SCHEMA);
            Tables.ColumnNameFilter exclude = Tables.ColumnNameFilterFactory.createExcludeListFilter(regexes, ColumnFilterMode.SCHEMA);
            for (String[] n : names) {
                ColumnInfo c = new ColumnInfo(0, n[2], TEXT, -1);
                boolean included = ColumnRules.from(Map.of("column.include.list", regexes)).table(n[0], n[1], List.of(c)).included(0);
                boolean notExcluded = ColumnRules.from(Map.of("column.exclude.list", regexes)).table(n[0], n[1], List.of(c)).included(0);
                String what = regexes + " on " + String.join(".", n);
                assertEquals(include.matches(null, n[0], n[1], n[2]), included, "include " + what);
                assertEquals(exclude.matches(null, n[0], n[1], n[2]), notExcluded, "exclude " + what);
            }
        }
    }

    @Test
    void propagatedSourceTypesEqualDebeziums() {
        ColumnInfo code = new ColumnInfo(0, "Code", VARCHAR, 14);
        ColumnInfo amount = new ColumnInfo(0, "amt", 1700, ((10 << 16) | 2) + 4);
        ColumnInfo note = new ColumnInfo(0, "note", TEXT, -1);
        ColumnInfo plain = new ColumnInfo(0, "plain", INT4, -1);
        Map<Integer, String> names = Map.of(VARCHAR, "varchar", 1700, "numeric", TEXT, "text", INT4, "int4");
        TableShape shape = ColumnRules.from(Map.of("column.propagate.source.type", "public\\.orders\\.(code|amt)",
                "datatype.propagate.source.type", ".*\\.text")).table("public", "Orders", List.of(code, amount, note, plain), names::get);
        PropagateSourceMetadataToSchemaParameter theirs = new PropagateSourceMetadataToSchemaParameter();
        List<Column> debezium = List.of(
                Column.editor().name("Code").type("varchar").jdbcType(Types.VARCHAR).length(10).create(),
                Column.editor().name("amt").type("numeric").jdbcType(Types.NUMERIC).length(10).scale(2).create(),
                Column.editor().name("note").type("text").jdbcType(Types.VARCHAR).create());
        for (int i = 0; i < debezium.size(); i++) {
            SchemaBuilder b = SchemaBuilder.string();
            theirs.alterFieldSchema(debezium.get(i), b);
            assertEquals(b.parameters(), shape.parameters(i), debezium.get(i).name());
        }
        assertEquals(Map.of(), shape.parameters(3));
        // Debezium's own matching picks the same columns.
        ColumnMappers mappers = new ColumnMappers.Builder(TableId::toString).propagateSourceTypeToSchemaParameter("x",
                "public\\.orders\\.(code|amt)").propagateSourceTypeToSchemaParameterByDatatype("y", ".*\\.text").build();
        TableId id = new TableId(null, "public", "Orders");
        for (int i = 0; i < debezium.size(); i++) assertTrue(mappers.mapperFor(id, debezium.get(i)) != null, debezium.get(i).name());
    }

    @Test
    void aMaskOnAColumnThatIsNotCharacterFailsInsteadOfLeaking() {
        ColumnInfo id = new ColumnInfo(0, "card", INT4, -1);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> shape(Map.of("column.mask.with.3.chars", ".*card"), id));
        assertTrue(e.getMessage().contains("public.Orders.card"), e.getMessage());
    }

    @Test
    void messageKeyColumnsNameTheKey() {
        ColumnInfo a = new ColumnInfo(0, "Tenant", TEXT, -1);
        ColumnInfo b = new ColumnInfo(0, "code", TEXT, -1);
        TableShape shape = shape(Map.of("message.key.columns", "other.t:x;public\\.orders:tenant,code"), a, b);
        assertEquals(List.of("Tenant", "code"), shape.keyColumns());
        assertThrows(IllegalStateException.class, () -> shape(Map.of("message.key.columns", "public.orders:nope"), a, b));
    }

    @Test
    void badSettingsAreRefusedOnTheirKeyWithoutTheSalt() {
        Map<String, List<String>> p = SettingsCheck.problems(Map.of("column.mask.hash.NOPE-9.with.salt.hunter2", "a.b.c"),
                org.apache.kafka.common.config.ConfigDef.class.cast(new org.apache.kafka.common.config.ConfigDef()));
        String m = p.get("column.mask.hash.NOPE-9.with.salt.hunter2").get(0);
        assertTrue(m.contains("no such digest algorithm") && !m.contains("hunter2"), m);
        p = SettingsCheck.problems(Map.of("column.include.list", "a", "column.exclude.list", "b"), new org.apache.kafka.common.config.ConfigDef());
        assertTrue(p.containsKey("column.exclude.list"), p.toString());
        p = SettingsCheck.problems(Map.of("message.key.columns", "public.t:id", "reselect.unavailable.values", "true"),
                new org.apache.kafka.common.config.ConfigDef());
        assertTrue(p.containsKey("message.key.columns"), p.toString());
    }
}
