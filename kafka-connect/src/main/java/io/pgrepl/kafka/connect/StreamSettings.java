package io.pgrepl.kafka.connect;

import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.StreamingMode;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the task's START_REPLICATION asks for, from the settings and the server's major version. */
final class StreamSettings {
    private static final Logger log = LoggerFactory.getLogger(StreamSettings.class);

    private StreamSettings() {}

    static LogicalReplicationOptions options(PgreplConnectorConfig config, int major) {
        return LogicalReplicationOptions.builder(config.slotName())
                .publications(config.publicationName())
                .streaming(streaming(config, major))
                .statusInterval(Duration.ofMillis(config.statusUpdateIntervalMs()))
                // Logical decoding messages go to <topic.prefix>.message (or messages.topic), as Debezium's
                // connector sends them; the option exists from 14. Incremental snapshots' watermarks and DDL
                // capture's records are messages too.
                .messages(major >= 14 ? Boolean.TRUE : null)
                // The slot is confirmed only to positions the committed offsets record (see StartPlan):
                // an idle stream moves it through heartbeats (PgreplSourceTask.idlePosition), not keepalives.
                .confirmIdleKeepalives(false)
                .build();
    }

    /** streaming=on/parallel asks for what the server offers up to that (14+ on, 16+ parallel). */
    static StreamingMode streaming(PgreplConnectorConfig config, int major) {
        StreamingMode asked = config.streaming();
        if (major < 14) {
            // The option does not exist there: large transactions arrive whole, at commit.
            if (asked != StreamingMode.OFF) {
                log.info("streaming={} needs PostgreSQL 14 or later; the server is {}, so transactions arrive at"
                        + " commit", config.getString(PgreplConnectorConfig.STREAMING), major);
            }
            return null;
        }
        if (asked == StreamingMode.OFF) return StreamingMode.OFF;
        if (asked == StreamingMode.PARALLEL && major >= 16) return StreamingMode.PARALLEL;
        return StreamingMode.ON;
    }
}
