package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgrepl.client.PgConnection;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A subscriber applying backpressure longer than the receive timeout is not a dead server.
 * Against {@link FakeWalSender}: a real walsender cannot be made to stay exactly silent on demand.
 */
class PausedReceiveTimeoutTest {
    private static final Duration RECEIVE_TIMEOUT = Duration.ofMillis(300);

    private static LogicalReplicationOptions options() {
        return LogicalReplicationOptions.builder("s1").publications("pub").receiveTimeout(RECEIVE_TIMEOUT)
                .statusInterval(Duration.ofMillis(100)).build();
    }

    private static final LogicalStreamHandler PAUSE_AT_START = new LogicalStreamHandler() {
        @Override
        public void onStarted(LogicalReplicationStream stream) {
            stream.pauseReading();
        }
    };

    @Test
    void pausedLongerThanReceiveTimeoutKeepsStreaming() throws Exception {
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.enterCopyBoth(in, out);
            FakeWalSender.finishAfterClientCopyDone(in, out);
        })) {
            PgConnection conn = PgConnection.connect(fake.config()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            try {
                LogicalReplicationStream s = LogicalReplicationStream.start(conn, options(), PAUSE_AT_START);
                s.started().toCompletableFuture().get(10, TimeUnit.SECONDS);
                Thread.sleep(RECEIVE_TIMEOUT.toMillis() * 4);
                assertFalse(s.completion().toCompletableFuture().isDone(), "paused: no receive timeout");
                s.resumeReading();
                s.stop().toCompletableFuture().get(10, TimeUnit.SECONDS); // ends normally
            } finally {
                conn.close();
            }
        }
    }

    @Test
    void receiveTimeoutCountsAgainAfterResume() throws Exception {
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.enterCopyBoth(in, out);
            FakeWalSender.silentUntilClientCloses(in); // the client gives up (receive timeout) and closes
        })) {
            PgConnection conn = PgConnection.connect(fake.config()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            try {
                LogicalReplicationStream s = LogicalReplicationStream.start(conn, options(), PAUSE_AT_START);
                s.started().toCompletableFuture().get(10, TimeUnit.SECONDS);
                Thread.sleep(RECEIVE_TIMEOUT.toMillis() * 2);
                assertFalse(s.completion().toCompletableFuture().isDone());
                s.resumeReading();
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> s.completion().toCompletableFuture().get(10, TimeUnit.SECONDS));
                assertInstanceOf(ReplicationConnectionLostException.class, e.getCause());
            } finally {
                conn.close();
            }
        }
    }
}
