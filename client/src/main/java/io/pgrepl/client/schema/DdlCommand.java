package io.pgrepl.client.schema;

import java.util.List;

/**
 * One DDL command on a table, as pgrepl's DDL capture reported it: a row of
 * {@code pg_event_trigger_ddl_commands()} at {@code ddl_command_end}, or of
 * {@code pg_event_trigger_dropped_objects()} at {@code sql_drop}, sent in the statement's own
 * transaction as a logical message with the prefix {@value SchemaTracker#DDL_PREFIX}
 * (see docs/schema-changes.md).
 *
 * @param event        {@code ddl_command_end} or {@code sql_drop}; {@code ddl_command_start} for a table
 *                     {@code CREATE TABLE AS} or {@code SELECT INTO} wrote rows to before its
 *                     {@code ddl_command_end}, reported at the table's first Relation
 * @param commandTag   the statement's command tag, e.g. {@code ALTER TABLE}, {@code CREATE TABLE}, {@code DROP TABLE}
 * @param objectType   {@code table} or {@code table column}
 * @param schema       the table's schema
 * @param name         the table's name (unquoted, without schema)
 * @param identity     {@code object_identity}, e.g. {@code public.items} or {@code public.items.qty}
 *                     (a renamed column is named with its new name)
 * @param relationId   the table's OID, which Relation messages carry as their relation id
 * @param attnum       the column's {@code attnum} for a {@code table column}, else 0
 * @param column       the column's name for a {@code table column} (new name after a rename), else null
 * @param query        {@code current_query()}: the text of the whole query string the client sent,
 *                     so a multi-statement string carries every statement in it, not only this one
 * @param table        the table as the catalog had it when the statement ended; null for
 *                     {@code sql_drop}; for {@code ddl_command_start}, the table as its first
 *                     Relation describes it (what {@code CREATE TABLE AS} makes: no NOT NULL, no
 *                     default, no primary key; a type is null when neither a built-in OID nor a
 *                     Type message names it)
 * @param publications the publications that include the table (directly, through a partition
 *                     ancestor, its schema or FOR ALL TABLES), as far as the catalog still said when
 *                     the trigger ran; empty for {@code ddl_command_start}
 */
public record DdlCommand(String event, String commandTag, String objectType, String schema, String name,
                         String identity,
                         int relationId, int attnum, String column, String query, CatalogTable table,
                         List<String> publications) {
    /** {@code ddl_command_end}: a command that created or altered something. */
    public static final String DDL_COMMAND_END = "ddl_command_end";
    /** {@code sql_drop}: an object was dropped. */
    public static final String SQL_DROP = "sql_drop";
    /**
     * {@code ddl_command_start}: a {@code CREATE TABLE AS} or {@code SELECT INTO} started, whose rows
     * reach the stream before its {@code ddl_command_end} message does.
     */
    public static final String DDL_COMMAND_START = "ddl_command_start";

    /** Copies the list. */
    public DdlCommand {
        publications = List.copyOf(publications);
    }

    /** {@return true for a column renamed by this command: {@code ALTER TABLE ... RENAME COLUMN} reports the column itself} */
    public boolean isColumnRename() {
        return DDL_COMMAND_END.equals(event) && "table column".equals(objectType) && column != null;
    }

    /** {@return true for a column dropped by this command} */
    public boolean isColumnDrop() {
        return SQL_DROP.equals(event) && "table column".equals(objectType);
    }

    /** {@return true for a table created by this command (CREATE TABLE, CREATE TABLE AS, SELECT INTO)} */
    public boolean isTableCreate() {
        return DDL_COMMAND_END.equals(event) && "table".equals(objectType)
                && (commandTag.equals("CREATE TABLE") || commandTag.equals("CREATE TABLE AS") || commandTag.equals("SELECT INTO"));
    }

    /** {@return true for the start of a statement that creates a table and writes its rows before its {@code ddl_command_end}} */
    boolean isCreateStart() {
        return DDL_COMMAND_START.equals(event);
    }

    /** {@return true for a table dropped (by DROP TABLE, or with its schema by DROP SCHEMA ... CASCADE)} */
    public boolean isTableDrop() {
        return SQL_DROP.equals(event) && "table".equals(objectType);
    }
}
