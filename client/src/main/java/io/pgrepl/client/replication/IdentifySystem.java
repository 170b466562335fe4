package io.pgrepl.client.replication;

import io.pgrepl.codec.Lsn;

/**
 * IDENTIFY_SYSTEM's row. {@code timeline} is int4 up to PG15 and int8 from PG16; both parse as
 * long. {@code dbname} is null on a physical connection.
 */
public record IdentifySystem(String systemId, long timeline, long xlogPos, String dbname) {
    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "IdentifySystem[systemId=" + systemId + ", timeline=" + timeline + ", xlogPos=" + Lsn.format(xlogPos)
                + ", dbname=" + dbname + "]";
    }
}
