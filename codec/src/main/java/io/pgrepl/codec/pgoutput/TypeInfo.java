package io.pgrepl.codec.pgoutput;

/**
 * A Type message: the name of a non-built-in column type.
 *
 * @param namespace as sent; empty means pg_catalog
 */
public record TypeInfo(int oid, String namespace, String name) {
    /** The namespace, with the wire's empty string shorthand expanded to pg_catalog. */
    public String schema() {
        return namespace.isEmpty() ? "pg_catalog" : namespace;
    }
}
