package io.pgrepl.client.stream;

/** pgoutput {@code origin} option (16+): NONE drops changes that carry a replication origin. */
public enum OriginFilter {
    ANY,
    NONE
}
