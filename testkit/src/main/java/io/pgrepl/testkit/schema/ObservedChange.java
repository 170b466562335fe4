package io.pgrepl.testkit.schema;

import java.util.List;
import java.util.Set;

/**
 * A schema-change event in a form every face can be reduced to (the library's {@code SchemaChange},
 * a JSON line of the command line, a record of the Kafka connector's schema topic), and the form
 * {@link SchemaScriptRun} builds its expectations in from the catalog.
 *
 * @param kind                   CREATE, ALTER, DROP or FIRST_SEEN
 * @param oid                    the table's OID
 * @param schema                 the table's schema (after the change; for DROP, the dropped table's)
 * @param table                  the table's name
 * @param before                 the earlier shape, {@code name:typeOid:typmod:key} per column; null for none
 * @param after                  the new shape; null for none
 * @param added                  added columns' names
 * @param dropped                dropped columns' names
 * @param renamed                renamed columns as {@code old->new}
 * @param retyped                retyped columns' (new) names
 * @param keyChanged             whether the replica identity key changed
 * @param replicaIdentityChanged whether REPLICA IDENTITY changed
 * @param ddlQueries             the captured statements' query texts, consecutive repeats removed
 * @param created                for CREATE: the new table's columns as {@code name:typeOid:typmod}; else empty
 */
public record ObservedChange(String kind, int oid, String schema, String table, List<String> before, List<String> after,
                             Set<String> added, Set<String> dropped, Set<String> renamed, Set<String> retyped,
                             boolean keyChanged, boolean replicaIdentityChanged, List<String> ddlQueries, List<String> created) {
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(kind).append(' ').append(schema).append('.').append(table).append(" (").append(Integer.toUnsignedString(oid)).append(')');
        if (before != null) b.append("\n    before ").append(before);
        if (after != null) b.append("\n    after  ").append(after);
        if (!added.isEmpty()) b.append("\n    added ").append(added);
        if (!dropped.isEmpty()) b.append("\n    dropped ").append(dropped);
        if (!renamed.isEmpty()) b.append("\n    renamed ").append(renamed);
        if (!retyped.isEmpty()) b.append("\n    retyped ").append(retyped);
        if (keyChanged) b.append("\n    key changed");
        if (replicaIdentityChanged) b.append("\n    replica identity changed");
        if (!ddlQueries.isEmpty()) b.append("\n    ddl ").append(ddlQueries);
        if (!created.isEmpty()) b.append("\n    created ").append(created);
        return b.toString();
    }
}
