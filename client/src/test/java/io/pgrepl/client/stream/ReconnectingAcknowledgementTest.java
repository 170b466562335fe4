package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgrepl.client.FakeBackend;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * Acknowledgements that bypass {@link ReconnectingLogicalStream#acknowledge} still decide where a
 * reconnect resumes. Against {@link FakeWalSender}: one scripted transaction, exact LSNs.
 */
class ReconnectingAcknowledgementTest {
    private static final long END_LSN = 0x3000;

    private static byte[] begin() {
        return ByteBuffer.allocate(21).put((byte) 'B').putLong(0x2F00).putLong(0).putInt(700).array();
    }

    private static byte[] commit() {
        return ByteBuffer.allocate(26).put((byte) 'C').put((byte) 0).putLong(0x2F00).putLong(END_LSN).putLong(0).array();
    }

    private static FakeWalSender oneTransaction() throws Exception {
        return new FakeWalSender((in, out) -> {
            FakeWalSender.answerPublicationCheck(in, out);
            FakeWalSender.enterCopyBoth(in, out);
            out.write(FakeWalSender.xlogData(0x2F00, begin()));
            out.write(FakeWalSender.xlogData(0x2F00, commit()));
            out.flush();
            FakeWalSender.finishAfterClientCopyDone(in, out);
        });
    }

    private static void awaitEquals(long expected, LongSupplier actual) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (actual.getAsLong() != expected && System.nanoTime() < deadline) Thread.sleep(10);
        assertEquals(expected, actual.getAsLong());
    }

    private static final ReconnectPolicy NO_RETRY = new ReconnectPolicy(Duration.ofMillis(10), Duration.ofMillis(10), 1, 0, 1);

    @Test
    void autoAcknowledgeReachesTheReconnectingStream() throws Exception {
        try (FakeWalSender fake = oneTransaction()) {
            ReconnectingLogicalStream r = ReconnectingLogicalStream.start(fake.config(),
                    LogicalReplicationOptions.builder("s1").publications("pub").autoAcknowledge(true).build(),
                    new LogicalStreamHandler() {}, NO_RETRY);
            awaitEquals(END_LSN, r::acknowledgedLsn);
            r.stop().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void acknowledgeThroughInnerStreamReachesTheReconnectingStream() throws Exception {
        CompletableFuture<LogicalReplicationStream> inner = new CompletableFuture<>();
        try (FakeWalSender fake = oneTransaction()) {
            ReconnectingLogicalStream r = ReconnectingLogicalStream.start(fake.config(),
                    LogicalReplicationOptions.builder("s1").publications("pub").build(),
                    new LogicalStreamHandler() {
                        @Override
                        public void onStarted(LogicalReplicationStream stream) {
                            inner.complete(stream);
                        }
                    }, NO_RETRY);
            inner.get(10, TimeUnit.SECONDS).acknowledge(END_LSN);
            awaitEquals(END_LSN, r::acknowledgedLsn);
            r.stop().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
