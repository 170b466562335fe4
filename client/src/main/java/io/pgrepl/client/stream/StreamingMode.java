package io.pgrepl.client.stream;

/** pgoutput {@code streaming} option: in-progress transactions sent before commit (14+, parallel 16+). */
public enum StreamingMode {
    /** Not sent: transactions arrive once committed. */
    OFF,
    /** 14+: large in-progress transactions are streamed in chunks. */
    ON,
    /** 16+ with proto 4; Stream Abort then carries the abort LSN and time. */
    PARALLEL,
    /** The most the server offers: PARALLEL on 16+, ON on 14–15, not sent before 14. */
    AUTO
}
