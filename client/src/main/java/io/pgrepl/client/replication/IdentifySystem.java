package io.pgrepl.client.replication;

/**
 * IDENTIFY_SYSTEM's row. {@code timeline} is int4 up to PG15 and int8 from PG16; both parse as
 * long. {@code dbname} is null on a physical connection.
 */
public record IdentifySystem(String systemId, long timeline, long xlogPos, String dbname) {}
