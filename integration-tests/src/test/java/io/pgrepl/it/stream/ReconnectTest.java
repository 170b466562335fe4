package io.pgrepl.it.stream;

import static io.pgrepl.it.stream.StreamSupport.await;
import static io.pgrepl.it.stream.StreamSupport.connect;
import static io.pgrepl.it.stream.StreamSupport.createLogicalSlot;
import static io.pgrepl.it.stream.StreamSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import java.util.List;

/** The walsender is terminated (FATAL 57P01) mid-stream: the stream reconnects and resumes from the acknowledged LSN. */
@PgTest
class ReconnectTest {
    @Test
    @PgServerConfig(version = 17)
    void reconnectsAfterWalsenderTerminated(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE it_rc (id int PRIMARY KEY); CREATE PUBLICATION it_rc_pub FOR TABLE it_rc");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            createLogicalSlot(repl, "it_rc", false);
        }
        RecordingHandler h = new RecordingHandler();
        ConnectionConfig cfg = ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .replication(ReplicationMode.DATABASE).build();
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(cfg, LogicalReplicationOptions.builder("it_rc")
                .publications("it_rc_pub").statusInterval(Duration.ofMillis(200)).build(), h,
                new ReconnectPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2, 0.5, 20));
        s.sql("postgres", "INSERT INTO it_rc VALUES (1)");
        s.sql("postgres", "INSERT INTO it_rc VALUES (2)");
        waitUntil("2 rows", Duration.ofSeconds(30), () -> h.commitEnds.size() >= 2);
        r.acknowledge(h.commitEnds.get(0)); // row 2 stays unacknowledged
        s.sql("postgres", "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'it_rc'");
        s.sql("postgres", "INSERT INTO it_rc VALUES (3)");
        waitUntil("row 3 after reconnect", Duration.ofSeconds(30), () -> h.inserts.contains("3"));
        assertTrue(r.reconnects() >= 1);
        assertEquals(List.of("1", "2", "2", "3"), h.inserts, "row 2 (unacknowledged) again, row 1 never again");
        await(r.stop());
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            await(repl.dropReplicationSlot("it_rc", true));
        }
    }
}
