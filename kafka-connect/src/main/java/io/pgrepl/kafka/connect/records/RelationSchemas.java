package io.pgrepl.kafka.connect.records;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.kafka.connect.TableFilter;
import io.pgrepl.kafka.connect.settings.ColumnRules;
import io.pgrepl.kafka.connect.settings.TableShape;
import io.pgrepl.kafka.connect.settings.TopicNaming;
import io.pgrepl.kafka.connect.settings.UnavailableValue;
import io.pgrepl.kafka.connect.values.TypeNames;
import io.pgrepl.kafka.connect.values.ValueConverters;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The captured tables by relation OID, each as its latest Relation message and the catalog make
 * it: its topic, key, columns and defaults. Apart from {@link ChangeRecords} because what a table
 * looks like is settled by Relation messages and the catalog alone, while the records built
 * against it depend on the transaction and the position.
 */
final class RelationSchemas {
    private final String topicPrefix;
    private final TableFilter filter;
    /** The column settings (lists, masks, hashes, truncation, message.key.columns). */
    private final ColumnRules columnRules;
    /** pg_type names, for column.propagate.source.type and datatype.propagate.source.type. */
    private final TypeNames typeNames;
    /** topic.naming.strategy and topic.delimiter: table topics made valid as Debezium makes them. */
    private final TopicNaming naming;
    private final ValueConverters converters;
    /** A table's key as Debezium chooses it and its columns' defaults (see {@link TableCatalog}). */
    private final TableCatalog.Lookup catalog;
    private final UnavailableValue unavailable;
    private final Map<Integer, RelationTable> schemas = new HashMap<>();
    /** The last table looked up (rows of one table come in runs): saves the boxing and the map lookup. */
    private RelationTable last;

    RelationSchemas(String topicPrefix, TableFilter filter, ColumnRules columnRules, TypeNames typeNames, TopicNaming naming,
                    ValueConverters converters, TableCatalog.Lookup catalog, UnavailableValue unavailable) {
        this.topicPrefix = topicPrefix;
        this.filter = filter;
        this.columnRules = columnRules;
        this.typeNames = typeNames;
        this.naming = naming;
        this.converters = converters;
        this.catalog = catalog;
        this.unavailable = unavailable;
    }

    /**
     * @param keyXid the transaction the Relation came in, for a key read from the catalog (0: now)
     * @param reread a Relation message: pgoutput sends one again after the table's definition changed
     *               (ALTER ... SET DEFAULT, a new index), so the catalog is read again even when the
     *               columns are the same, as Debezium reads it at every Relation message
     */
    void relation(Relation rel, long keyXid, boolean reread) {
        RelationTable old = schemas.get(rel.oid());
        boolean same = old != null && old.schema.sameColumns(rel);
        if (same && !reread) return;
        last = null;
        if (!filter.test(rel.namespace(), rel.name())) {
            schemas.remove(rel.oid());
            return;
        }
        if (columnRules.needsTypeNames()) typeNames.load(rel.columns().stream().map(ColumnInfo::typeOid).toList());
        TableShape shape = columnRules.table(rel.namespace(), rel.name(), rel.columns(), typeNames::name);
        TableCatalog.Info info = catalogOf(rel.oid(), keyXid);
        // The replica identity's columns are the key when they are the primary key (DEFAULT) or the identity
        // index (USING INDEX: a delete's old row has no others). Otherwise (FULL flags every column; NOTHING and
        // a DEFAULT without a primary key flag none) the catalog's: the primary key, or the first unique index.
        boolean flagged = rel.replicaIdentity() == 'i'
                || rel.replicaIdentity() == 'd' && rel.columns().stream().anyMatch(ColumnInfo::isKey);
        Set<String> identity = flagged ? null : present(info.notNull(), rel);
        Set<String> catalogKey = flagged ? null : present(info.key(), rel);
        Set<String> key = shape.keyColumns() != null ? Set.copyOf(shape.keyColumns()) : catalogKey;
        if (same) {
            // The Relation again, columns unchanged: the defaults may be new, the key stays. A key the catalog
            // gives now may come from DDL later in the transaction than the changes this Relation precedes.
            key = old.schema.keyNames;
            identity = old.schema.identityNames;
        }
        String topic = naming.table(topicPrefix, rel.namespace(), rel.name());
        TableSchema schema = new TableSchema(rel, topic, converters, key, identity, shape, info.defaults());
        if (same && java.util.Objects.equals(schema.keySchema, old.schema.keySchema) && schema.rowSchema.equals(old.schema.rowSchema)) {
            return; // nothing the records show changed: the cached table stays
        }
        schemas.put(rel.oid(), new RelationTable(schema, shape, unavailable));
    }

    TableCatalog.Info catalogOf(int oid, long xid) {
        TableCatalog.Info info = catalog.of(oid, xid);
        return info == null ? TableCatalog.Info.NONE : info;
    }

    /**
     * {@code names} less those the Relation does not have: the catalog is read later than the Relation
     * was sent, and may name a column added since (Debezium leaves those out too).
     */
    private static Set<String> present(Set<String> names, Relation rel) {
        Set<String> out = new java.util.HashSet<>();
        for (ColumnInfo c : rel.columns()) if (names.contains(c.name())) out.add(c.name());
        return out;
    }

    /**
     * The columns the records of table {@code relOid} are keyed by (indexes into its relation: the
     * replica identity, the primary key under FULL, or message.key.columns), or null when the table
     * is not captured or has no key.
     */
    public int[] keyColumns(int relOid) {
        RelationTable t = schemas.get(relOid);
        return t == null || t.schema.keyColumns.length == 0 ? null : t.schema.keyColumns.clone();
    }

    /** Null when the table is filtered out. */
    RelationTable table(int oid) {
        RelationTable t = last;
        if (t != null && t.oid == oid) return t;
        t = schemas.get(oid);
        if (t != null) last = t;
        return t;
    }
}
