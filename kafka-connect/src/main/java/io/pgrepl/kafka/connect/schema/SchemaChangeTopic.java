package io.pgrepl.kafka.connect.schema;

import io.pgrepl.client.schema.CatalogColumn;
import io.pgrepl.client.schema.CatalogTable;
import io.pgrepl.client.schema.ColumnChange;
import io.pgrepl.client.schema.DdlCommand;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.schema.SchemaTracker;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The connector's schema change topic ({@code schema.changes.topic}): one record per
 * {@link SchemaChange} of a captured table, keyed by table, its value in the shape of Debezium's
 * schema change events ({@code SchemaChangeValue}: {@code source}, {@code ts_ms},
 * {@code databaseName}, {@code schemaName}, {@code ddl}, {@code tableChanges} with one
 * {@code io.debezium.connector.schema.Change} holding the table's columns with their types,
 * lengths, scales, nullability and defaults as far as known), plus {@code difference}: what changed,
 * which Debezium's format leaves to parsing the DDL. Fed the records of each transaction in commit
 * order (its own {@link SchemaTracker}), on the task's thread.
 */
public final class SchemaChangeTopic {
    static final Schema COLUMN = SchemaBuilder.struct().name("io.debezium.connector.schema.Column").version(1)
            .field("name", Schema.STRING_SCHEMA)
            .field("jdbcType", Schema.INT32_SCHEMA)
            .field("nativeType", Schema.OPTIONAL_INT32_SCHEMA)
            .field("typeName", Schema.STRING_SCHEMA)
            .field("typeExpression", Schema.OPTIONAL_STRING_SCHEMA)
            .field("charsetName", Schema.OPTIONAL_STRING_SCHEMA)
            .field("length", Schema.OPTIONAL_INT32_SCHEMA)
            .field("scale", Schema.OPTIONAL_INT32_SCHEMA)
            .field("position", Schema.INT32_SCHEMA)
            .field("optional", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .field("autoIncremented", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .field("generated", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .field("comment", Schema.OPTIONAL_STRING_SCHEMA)
            .field("defaultValueExpression", Schema.OPTIONAL_STRING_SCHEMA)
            .field("enumValues", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .build();
    static final Schema TABLE = SchemaBuilder.struct().name("io.debezium.connector.schema.Table").version(1).optional()
            .field("defaultCharsetName", Schema.OPTIONAL_STRING_SCHEMA)
            .field("primaryKeyColumnNames", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .field("columns", SchemaBuilder.array(COLUMN).build())
            .field("comment", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    static final Schema CHANGE = SchemaBuilder.struct().name("io.debezium.connector.schema.Change").version(1)
            .field("type", Schema.STRING_SCHEMA)
            .field("id", Schema.STRING_SCHEMA)
            .field("table", TABLE)
            .build();
    static final Schema RENAMED = SchemaBuilder.struct().name("io.pgrepl.connector.postgresql.RenamedColumn").version(1)
            .field("from", Schema.STRING_SCHEMA).field("to", Schema.STRING_SCHEMA).build();
    static final Schema DIFFERENCE = SchemaBuilder.struct().name("io.pgrepl.connector.postgresql.SchemaDifference").version(1)
            .optional()
            .field("kind", Schema.STRING_SCHEMA)
            .field("relationId", Schema.INT64_SCHEMA)
            .field("previousId", Schema.OPTIONAL_STRING_SCHEMA)
            .field("added", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("dropped", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("renamed", SchemaBuilder.array(RENAMED).build())
            .field("retyped", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("keyChanged", Schema.BOOLEAN_SCHEMA)
            .field("replicaIdentity", Schema.OPTIONAL_STRING_SCHEMA)
            .field("replicaIdentityChanged", Schema.BOOLEAN_SCHEMA)
            .build();
    /** Debezium's key is the database alone; the table's schema and name keep each table's changes in one partition, in order. */
    public static final Schema KEY = SchemaBuilder.struct().name("io.debezium.connector.postgresql.SchemaChangeKey").version(1)
            .field("databaseName", Schema.STRING_SCHEMA)
            .field("schemaName", Schema.OPTIONAL_STRING_SCHEMA)
            .field("tableName", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    private final String topic;
    private final Schema valueSchema;
    private final SchemaTracker tracker;
    /** A REPLICA IDENTITY FULL table's primary key, for {@code primaryKeyColumnNames} without DDL capture. */
    private final IntFunction<Set<String>> primaryKeys;
    /** Names of user-defined types from Type messages. */
    private final Map<Integer, String> typeNames = new HashMap<>();

    /**
     * @param topic        the topic's name
     * @param sourceSchema the schema of the {@code source} block data change records carry
     * @param publications the stream's publications (DDL capture's CREATE and DROP of other tables are left out)
     * @param primaryKeys  a REPLICA IDENTITY FULL table's primary key column names, by relation id
     */
    public SchemaChangeTopic(String topic, Schema sourceSchema, Collection<String> publications, IntFunction<Set<String>> primaryKeys) {
        this.topic = topic;
        this.tracker = new SchemaTracker(publications);
        this.primaryKeys = primaryKeys;
        this.valueSchema = SchemaBuilder.struct().name("io.debezium.connector.postgresql.SchemaChangeValue").version(1)
                .field("source", sourceSchema)
                .field("ts_ms", Schema.INT64_SCHEMA)
                .field("databaseName", Schema.OPTIONAL_STRING_SCHEMA)
                .field("schemaName", Schema.OPTIONAL_STRING_SCHEMA)
                .field("ddl", Schema.OPTIONAL_STRING_SCHEMA)
                .field("tableChanges", SchemaBuilder.array(CHANGE).build())
                .field("difference", DIFFERENCE)
                .build();
    }

    /** {@return the topic's name} */
    public String topic() {
        return topic;
    }

    /** {@return the schema of the records' values} */
    public Schema valueSchema() {
        return valueSchema;
    }

    /**
     * The next record of a transaction, in commit order: a Relation or a DDL capture message may
     * tell a change; a Type names a user-defined type for later columns.
     *
     * @param record the record
     * @return the change, or null
     */
    public SchemaChange accept(PgOutputRecord record) {
        if (record instanceof Type t) typeNames.put(t.oid(), t.name());
        return tracker.accept(record);
    }

    /** A transaction begins (see {@link SchemaTracker#begin()}). */
    public void begin() {
        tracker.begin();
    }

    /** {@return the record key: the database and the table} */
    public Struct key(String database, SchemaChange c) {
        return new Struct(KEY).put("databaseName", database).put("schemaName", c.schema()).put("tableName", c.table());
    }

    /**
     * The record value.
     *
     * @param c        the change
     * @param source   the {@code source} block (of the change's transaction and table)
     * @param database the database's name
     * @param tsMs     when the connector processed it
     * @return the value
     */
    public Struct value(SchemaChange c, Struct source, String database, long tsMs) {
        List<String> queries = new ArrayList<>();
        for (DdlCommand d : c.ddl()) if (d.query() != null && !queries.contains(d.query())) queries.add(d.query());
        Struct change = new Struct(CHANGE)
                .put("type", c.kind() == SchemaChange.Kind.FIRST_SEEN ? "CREATE" : c.kind().name())
                .put("id", id(c.schema(), c.table()))
                .put("table", table(c));
        return new Struct(valueSchema).put("source", source).put("ts_ms", tsMs).put("databaseName", database)
                .put("schemaName", c.schema()).put("ddl", queries.isEmpty() ? null : String.join("\n", queries))
                .put("tableChanges", List.of(change)).put("difference", difference(c));
    }

    /** Debezium's table id, double-quoted: {@code "schema"."table"}. */
    static String id(String schema, String table) {
        return "\"" + schema.replace("\"", "\"\"") + "\".\"" + table.replace("\"", "\"\"") + "\"";
    }

    private Struct difference(SchemaChange c) {
        List<String> added = new ArrayList<>();
        for (ColumnInfo a : c.added()) added.add(a.name());
        List<String> dropped = new ArrayList<>();
        for (ColumnInfo d : c.dropped()) dropped.add(d.name());
        List<Struct> renamed = new ArrayList<>();
        for (ColumnChange r : c.renamed()) renamed.add(new Struct(RENAMED).put("from", r.before().name()).put("to", r.after().name()));
        List<String> retyped = new ArrayList<>();
        for (ColumnChange r : c.retyped()) retyped.add(r.after().name());
        RelationInfo shape = c.after() != null ? c.after() : c.before();
        return new Struct(DIFFERENCE).put("kind", c.kind().name()).put("relationId", Integer.toUnsignedLong(c.relationId()))
                .put("previousId", c.tableRenamed() || c.schemaMoved() ? id(c.before().schema(), c.before().name()) : null)
                .put("added", added).put("dropped", dropped).put("renamed", renamed).put("retyped", retyped)
                .put("keyChanged", c.keyChanged())
                .put("replicaIdentity", shape == null ? null : String.valueOf(shape.replicaIdentity()))
                .put("replicaIdentityChanged", c.replicaIdentityChanged());
    }

    /** The table after the change (before it, for a DROP), or null when nothing describes it. */
    private Struct table(SchemaChange c) {
        CatalogTable catalog = null;
        for (DdlCommand d : c.ddl()) if (d.table() != null) catalog = d.table();
        RelationInfo shape = c.after() != null ? c.after() : c.before();
        List<Struct> columns = new ArrayList<>();
        List<String> key = new ArrayList<>();
        if (shape != null) {
            for (int i = 0; i < shape.columnCount(); i++) {
                ColumnInfo col = shape.column(i);
                CatalogColumn cc = catalog == null ? null : catalog.column(col.name());
                columns.add(column(col.name(), col.typeOid(), col.typmod(), i + 1, cc, !col.isKey()));
            }
            if (catalog != null) key.addAll(catalog.primaryKey());
            else if (shape.replicaIdentity() == 'f') {
                Set<String> pk = primaryKeys.apply(shape.oid());
                for (ColumnInfo col : shape.columns()) if (pk != null && pk.contains(col.name())) key.add(col.name());
            } else {
                for (ColumnInfo col : shape.columns()) if (col.isKey()) key.add(col.name());
            }
        } else if (catalog != null) {
            int position = 0;
            for (CatalogColumn cc : catalog.columns()) columns.add(column(cc.name(), cc.typeOid(), cc.typmod(), ++position, cc, true));
            key.addAll(catalog.primaryKey());
        } else {
            return null;
        }
        return new Struct(TABLE).put("primaryKeyColumnNames", key).put("columns", columns);
    }

    private Struct column(String name, int typeOid, int typmod, int position, CatalogColumn cc, boolean optional) {
        String typeName = typeNames.get(typeOid);
        if (typeName == null) typeName = ColumnTypes.name(typeOid);
        if (typeName == null) typeName = cc != null ? cc.type() : "oid:" + Integer.toUnsignedString(typeOid);
        String def = cc == null ? null : cc.defaultValue();
        return new Struct(COLUMN).put("name", name).put("jdbcType", ColumnTypes.jdbcType(typeOid)).put("nativeType", typeOid)
                .put("typeName", typeName).put("typeExpression", cc != null ? cc.type() : typeName)
                .put("length", ColumnTypes.length(typeOid, typmod)).put("scale", ColumnTypes.scale(typeOid, typmod))
                .put("position", position).put("optional", cc != null ? !cc.notNull() : optional)
                .put("autoIncremented", def != null && def.toLowerCase(Locale.ROOT).startsWith("nextval("))
                .put("generated", cc != null && cc.generated())
                .put("defaultValueExpression", def);
    }
}
