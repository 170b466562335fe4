package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Whoever loses the race between the end of authentication and a timeout
 * closes the channel, so no authenticated connection is left open behind a failed future. The
 * backend is a FAKE ({@link FakeBackend}): no real server holds AuthenticationOk back on demand.
 */
class ConnectTimeoutRaceTest {

    /** A backend that answers the startup packet with AuthenticationOk only after {@code delayMs}. */
    private static FakeBackend slowAuth(long delayMs, AtomicBoolean answered, boolean sslRequest) throws IOException {
        return new FakeBackend((in, out) -> {
            if (sslRequest) {
                FakeBackend.readUntyped(in);
                out.write('N');
                out.flush();
            }
            FakeBackend.readUntyped(in);
            Thread.sleep(delayMs);
            try {
                out.write(FakeBackend.startupOk("17.6"));
                out.flush();
                answered.set(true);
            } catch (IOException closedMeanwhile) {
                // the client gave up first and closed: that is the outcome under test
            }
        });
    }

    /**
     * The fake drains until the client closes the socket; a client that leaked its connection
     * never closes it, and the fake's 10 s read timeout fires instead.
     */
    private static void assertClientClosed(FakeBackend fake) throws Exception {
        try {
            fake.done.get(8, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the client left the connection open", e);
        } catch (ExecutionException e) {
            assertFalse(e.getCause() instanceof SocketTimeoutException, "the client left the connection open");
        }
    }

    /** With sslmode=prefer the future handed out is a dependent of the attempt's own (the plaintext fallback). */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = io.pgrepl.client.config.SslMode.class, names = {"DISABLE", "PREFER"})
    void callerGivingUpBeforeAuthenticationOkClosesTheConnection(io.pgrepl.client.config.SslMode mode) throws Exception {
        AtomicBoolean answered = new AtomicBoolean();
        try (FakeBackend fake = slowAuth(600, answered, mode == io.pgrepl.client.config.SslMode.PREFER)) {
            CompletableFuture<PgConnection> f = PgConnection.connect(fake.config().sslMode(mode).build()).toCompletableFuture();
            // The caller's own deadline completes the future first; the authentication finishes later.
            f.orTimeout(100, TimeUnit.MILLISECONDS);
            Throwable t = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS)).getCause();
            assertInstanceOf(TimeoutException.class, t);
            assertClientClosed(fake);
            assertTrue(answered.get(), "the backend completed authentication after the caller gave up");
        }
    }

    @Test
    void connectTimeoutBeforeAuthenticationOkClosesTheConnection() throws Exception {
        AtomicBoolean answered = new AtomicBoolean();
        try (FakeBackend fake = slowAuth(700, answered, false)) {
            CompletableFuture<PgConnection> f = PgConnection.connect(fake.config()
                    .connectTimeout(Duration.ofMillis(200)).build()).toCompletableFuture();
            Throwable t = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS)).getCause();
            PgClientException e = assertInstanceOf(PgClientException.class, t);
            assertEquals(PgClientException.Kind.TIMEOUT, e.kind());
            assertClientClosed(fake);
        }
    }
}
