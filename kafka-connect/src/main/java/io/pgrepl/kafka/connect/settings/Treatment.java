package io.pgrepl.kafka.connect.settings;

/** What pgrepl does with one of Debezium's settings. */
public enum Treatment {
    /** Read and honoured with Debezium's meaning. */
    SAME,
    /** Read and honoured, with the difference its note states. */
    DIFFERENT,
    /** Refused at validation (and by start()): its note says what to do instead. */
    REFUSED
}
