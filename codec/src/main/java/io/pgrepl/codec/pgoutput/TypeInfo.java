package io.pgrepl.codec.pgoutput;

/**
 * A Type message: the name of a non-built-in column type.
 *
 * @param oid       the type's {@code pg_type} OID
 * @param namespace as sent; empty means pg_catalog
 * @param name      the type's name, as {@code pg_type.typname}
 */
public record TypeInfo(int oid, String namespace, String name) {
    /**
     * The namespace, with the wire's empty string shorthand expanded to pg_catalog.
     *
     * @return the schema name, never empty
     */
    public String schema() {
        return namespace.isEmpty() ? "pg_catalog" : namespace;
    }
}
