package io.pgrepl.kafka.connect;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Every wait on the database the connector's own threads make: bounded, abandoning what it gave up
 * on, and failing with a message that holds no password. Apart from {@link ReplicationSetup} (which
 * keeps its {@code await} for the setup code) so the snapshot package can wait the same way without
 * depending on the setup, which itself calls into the snapshot package.
 */
public final class BoundedWait {
    public static final long TIMEOUT_SECONDS = 30;

    private BoundedWait() {}

    public static <T> T await(CompletionStage<T> stage, PgreplConnectorConfig config, String what) {
        return await(stage, config, what, Duration.ofSeconds(TIMEOUT_SECONDS));
    }

    /**
     * Waits for {@code stage}; when the wait times out or is interrupted, the stage is abandoned:
     * cancelled (a connect stage closes what it opens after a cancel) and anything that still
     * arrives and can be closed (a connection) is closed, so nothing is left open with no owner.
     */
    public static <T> T await(CompletionStage<T> stage, PgreplConnectorConfig config, String what, Duration timeout) {
        CompletableFuture<T> f = stage.toCompletableFuture();
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            abandon(stage, f);
            Thread.currentThread().interrupt();
            throw new ConnectException("interrupted while " + what);
        } catch (TimeoutException e) {
            abandon(stage, f);
            throw new ConnectException("timed out after " + timeout.toSeconds() + " s " + what);
        } catch (ExecutionException | CompletionException e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            throw new ConnectException(what + " failed: " + safeMessage(c, config));
        }
    }

    private static void abandon(CompletionStage<?> stage, CompletableFuture<?> f) {
        f.cancel(false);
        // If the cancel lost the race (or f is a copy of the stage), what arrives is closed here.
        stage.whenComplete((v, e) -> {
            if (v instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing an abandoned connection: nothing more to do
                }
            }
        });
    }

    /** A failure's message with any password in the configuration masked. */
    public static String safeMessage(Throwable t, PgreplConnectorConfig config) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        String pw = config.getPassword(PgreplConnectorConfig.DATABASE_PASSWORD) == null ? null
                : config.getPassword(PgreplConnectorConfig.DATABASE_PASSWORD).value();
        return Secrets.mask(m, config.url(), pw, config.getPassword(io.pgrepl.kafka.connect.settings.DatabaseSettings.SSLPASSWORD) == null ? null
                : config.getPassword(io.pgrepl.kafka.connect.settings.DatabaseSettings.SSLPASSWORD).value());
    }
}
