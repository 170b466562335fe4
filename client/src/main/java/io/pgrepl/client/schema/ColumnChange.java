package io.pgrepl.client.schema;

import io.pgrepl.codec.pgoutput.ColumnInfo;

/**
 * One column before and after a schema change: renamed ({@link SchemaChange#renamed()}) or given
 * another type or type modifier ({@link SchemaChange#retyped()}).
 *
 * @param before the column in the earlier Relation
 * @param after  the same column in the later one
 */
public record ColumnChange(ColumnInfo before, ColumnInfo after) {}
