package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.FakeBackend;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.protocol.FrameTooLargeException;
import io.pgrepl.codec.MalformedMessageException;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Broken framing and copy-mode violations end the stream with a non-transient
 * {@link ReplicationProtocolException}, and {@link ReconnectingLogicalStream} does not retry them:
 * a walsender resends the same bytes to a new connection. Against {@link FakeWalSender}: no real
 * server sends malformed frames on demand (the oversized row against real servers is in the
 * integration tests).
 */
class ProtocolViolationTest {
    private static final int LIMIT = 64 * 1024;

    interface Bytes {
        void send(DataOutputStream out) throws IOException;
    }

    /** A FakeWalSender that enters copy mode, then sends {@code bad}; the stream's failure. */
    private static Throwable streamFailure(Bytes bad) throws Exception {
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.enterCopyBoth(in, out);
            bad.send(out);
            out.flush();
            FakeWalSender.silentUntilClientCloses(in);
        })) {
            PgConnection conn = PgConnection.connect(fake.configBuilder().maxFrameSize(LIMIT).build())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            try {
                LogicalReplicationStream s = LogicalReplicationStream.start(conn,
                        LogicalReplicationOptions.builder("s1").publications("pub").build(), new LogicalStreamHandler() {});
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> s.completion().toCompletableFuture().get(10, TimeUnit.SECONDS));
                ReplicationProtocolException p = assertInstanceOf(ReplicationProtocolException.class, e.getCause());
                assertFalse(p.isTransient(), "the same bytes would come again");
                return p.getCause();
            } finally {
                conn.close();
            }
        }
    }

    private static void header(DataOutputStream out, char type, int length) throws IOException {
        out.write(type);
        out.writeInt(length);
    }

    @Test
    void frameOverTheLimitNamesTheLimitAndTheSize() throws Exception {
        // Only the header: the limit must strike before the client waits for (or buffers) the payload.
        Throwable cause = streamFailure(out -> header(out, 'd', 1_000_000));
        FrameTooLargeException f = assertInstanceOf(FrameTooLargeException.class, cause);
        assertEquals(1_000_001L, f.frameSize());
        assertEquals(LIMIT, f.maxFrameSize());
        assertTrue(f.getMessage().contains("1000001") && f.getMessage().contains("maxFrameSize " + LIMIT),
                f.getMessage());
    }

    @Test
    void frameLengthBelowFourIsMalformed() throws Exception {
        Throwable cause = streamFailure(out -> header(out, 'd', 3));
        assertEquals(MalformedMessageException.class, cause.getClass());
        assertTrue(cause.getMessage().contains("frame length 3"), cause.getMessage());
    }

    @Test
    void truncatedXLogDataHeaderIsMalformed() throws Exception {
        Throwable cause = streamFailure(out -> out.write(FakeBackend.msg('d', new byte[] {'w', 0, 0, 0, 0, 0, 0, 0, 1})));
        assertEquals(MalformedMessageException.class, cause.getClass());
        assertTrue(cause.getMessage().contains("XLogData"), cause.getMessage());
    }

    @Test
    void emptyCopyDataIsAProtocolViolation() throws Exception {
        Throwable cause = streamFailure(out -> out.write(FakeBackend.msg('d', new byte[0])));
        assertEquals(PgClientException.Kind.PROTOCOL, assertInstanceOf(PgClientException.class, cause).kind());
    }

    @Test
    void messageWithNoPlaceInCopyModeIsAProtocolViolation() throws Exception {
        Throwable cause = streamFailure(out -> out.write(FakeBackend.msg('1', new byte[0]))); // ParseComplete
        PgClientException p = assertInstanceOf(PgClientException.class, cause);
        assertEquals(PgClientException.Kind.PROTOCOL, p.kind());
        assertTrue(p.getMessage().contains("START_REPLICATION"), p.getMessage());
    }

    @Test
    void reconnectingStreamDoesNotRetryAnOversizedFrame() throws Exception {
        AtomicInteger copyModes = new AtomicInteger();
        // Up to three connections are served, so a client that wrongly retries gets a second copy mode.
        try (FakeWalSender fake = new FakeWalSender(3, (in, out) -> {
            FakeWalSender.answerPublicationCheck(in, out);
            FakeWalSender.enterCopyBoth(in, out);
            copyModes.incrementAndGet();
            ByteBuffer row = ByteBuffer.allocate(5).put((byte) 'd').putInt(LIMIT * 4);
            out.write(row.array());
            out.flush();
            FakeWalSender.silentUntilClientCloses(in);
        })) {
            ConnectionConfig cfg = fake.configBuilder().maxFrameSize(LIMIT).build();
            ReconnectingLogicalStream r = ReconnectingLogicalStream.start(cfg,
                    LogicalReplicationOptions.builder("s1").publications("pub").build(), new LogicalStreamHandler() {},
                    new ReconnectPolicy(Duration.ofMillis(1), Duration.ofMillis(5), 1, 0, 0));
            try {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> r.completion().toCompletableFuture().get(10, TimeUnit.SECONDS));
                ReplicationProtocolException p = assertInstanceOf(ReplicationProtocolException.class, e.getCause());
                assertInstanceOf(FrameTooLargeException.class, p.getCause());
                assertEquals(0, r.reconnects(), "a deterministic error is not retried");
                assertEquals(1, fake.accepted(), "one connection only");
                assertEquals(1, copyModes.get());
            } finally {
                r.stop();
            }
        }
    }
}
