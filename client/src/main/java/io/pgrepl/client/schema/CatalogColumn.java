package io.pgrepl.client.schema;

/**
 * One column of a table as the catalog described it when a captured DDL statement ended
 * ({@code pg_attribute} and {@code pg_attrdef}), which knows more than a Relation message: the
 * type's name with its modifier, NOT NULL and the default.
 *
 * @param attnum       {@code attnum}: stable across renames, never reused after a drop
 * @param name         {@code attname}
 * @param type         {@code format_type(atttypid, atttypmod)}, e.g. {@code numeric(12,2)}
 * @param typeOid      {@code atttypid}
 * @param typmod       {@code atttypmod}, -1 when the type has none
 * @param notNull      {@code attnotnull}
 * @param defaultValue the default's expression as {@code pg_get_expr} prints it, or null for none
 * @param generated    true for a generated column (PostgreSQL 12+; pgoutput sends it only with
 *                     {@code publish_generated_columns}, 18+)
 */
public record CatalogColumn(int attnum, String name, String type, int typeOid, int typmod, boolean notNull,
                            String defaultValue, boolean generated) {}
