package io.pgrepl.kafka.connect;

import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.kafka.connect.snapshot.IncrementalSettings;
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
                // Incremental snapshots' watermarks are transactional messages on 14+ (a signal table before);
                // so are DDL capture's, read for the schema change topic.
                .messages((!config.messagesTopic().isEmpty() || IncrementalSettings.enabled(config)
                        || !config.schemaChangesTopic().isEmpty()) && major >= 14 ? Boolean.TRUE : null)
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
