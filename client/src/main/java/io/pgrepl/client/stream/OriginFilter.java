package io.pgrepl.client.stream;

/** pgoutput {@code origin} option (16+): NONE drops changes that carry a replication origin. */
public enum OriginFilter {
    /** Changes from any origin (the default). */
    ANY,
    /** Only changes without a replication origin (not applied by another subscription). */
    NONE
}
