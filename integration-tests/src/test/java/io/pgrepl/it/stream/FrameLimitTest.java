package io.pgrepl.it.stream;

import static io.pgrepl.it.stream.StreamSupport.connect;
import static io.pgrepl.it.stream.StreamSupport.createLogicalSlot;
import static io.pgrepl.it.stream.StreamSupport.dropWhenInactive;
import static io.pgrepl.it.stream.StreamSupport.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.protocol.FrameTooLargeException;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.ReplicationProtocolException;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * A row bigger than the connection's maxFrameSize is a deterministic error: the walsender would
 * send the same row to every new connection. With reconnecting on and no attempt limit, the
 * stream ends with a non-transient {@link ReplicationProtocolException} naming the limit and the
 * frame's size, after exactly one connection. Against the newest and oldest server of the matrix.
 */
class FrameLimitTest {
    private static final int LIMIT = 4096;

    @TestFactory
    Stream<DynamicTest> rowOverTheFrameLimitIsNotRetried() {
        List<Integer> m = PgVersions.matrix();
        return Stream.of(m.get(m.size() - 1), m.get(0)).distinct().map(v -> dynamicTest("PG " + v, () -> {
            try (PgServer s = PgServer.builder().version(v).start()) {
                run(s);
            }
        }));
    }

    private static void run(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE it_big (id int PRIMARY KEY, v text); CREATE PUBLICATION it_big_pub FOR TABLE it_big");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            createLogicalSlot(repl, "it_big", false);
        }
        s.sql("postgres", "INSERT INTO it_big VALUES (1, 'small')");
        // pgoutput sends the whole value in one Insert message, so one CopyData frame of ~10 kB.
        s.sql("postgres", "INSERT INTO it_big VALUES (2, repeat('x', 10000))");
        RecordingHandler h = new RecordingHandler();
        ConnectionConfig cfg = ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .replication(ReplicationMode.DATABASE).maxFrameSize(LIMIT).build();
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(cfg,
                LogicalReplicationOptions.builder("it_big").publications("it_big_pub").build(), h,
                new ReconnectPolicy(Duration.ofMillis(10), Duration.ofMillis(50), 2, 0, 0)); // retry forever, fast
        try {
            ReplicationProtocolException p = assertInstanceOf(ReplicationProtocolException.class, failure(r.completion()));
            assertFalse(p.isTransient());
            FrameTooLargeException f = assertInstanceOf(FrameTooLargeException.class, p.getCause());
            assertEquals(LIMIT, f.maxFrameSize());
            assertTrue(f.frameSize() > 10000 && f.frameSize() < 11000, "the frame of the 10 kB row: " + f.frameSize());
            assertTrue(p.getMessage().contains("maxFrameSize " + LIMIT) && p.getMessage().contains(" " + f.frameSize() + " "),
                    p.getMessage());
            assertEquals(0, r.reconnects(), "not retried");
            assertEquals(List.of("1"), h.inserts, "the row before it was delivered");
        } finally {
            r.stop();
        }
        dropWhenInactive(s, "it_big");
    }
}
