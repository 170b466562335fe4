package io.pgrepl.flink.internal;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.flink.PgreplFlinkException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Blocking waits on the client's stages for the enumerator's and the readers' own threads, with the password kept out of messages. */
public final class Db {
    /** How long a catalog query or a slot command may take. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    private Db() {}

    /** Connects and waits. */
    public static PgConnection connect(Settings s, ReplicationMode mode) {
        return await(PgConnection.connect(s.connection(mode)), s, "connecting to " + s.connection(mode).host(), TIMEOUT);
    }

    /** One query, waited for. */
    public static QueryResult query(PgConnection c, Settings s, String sql, String what) {
        return await(c.query(sql), s, what, TIMEOUT);
    }

    /**
     * Waits for {@code stage}; a stage given up on (timeout, interrupt) is abandoned and whatever it
     * still yields that can be closed is closed.
     */
    public static <T> T await(CompletionStage<T> stage, Settings s, String what, Duration timeout) {
        CompletableFuture<T> f = stage.toCompletableFuture();
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            abandon(stage, f);
            Thread.currentThread().interrupt();
            throw new PgreplFlinkException("interrupted while " + what);
        } catch (TimeoutException e) {
            abandon(stage, f);
            throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s " + what);
        } catch (ExecutionException | CompletionException e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException(what + " failed: " + safeMessage(c, s), c);
        }
    }

    private static void abandon(CompletionStage<?> stage, CompletableFuture<?> f) {
        f.cancel(false);
        stage.whenComplete((v, e) -> {
            if (v instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing what nobody waits for any more
                }
            }
        });
    }

    /** A failure's message with the password masked. */
    public static String safeMessage(Throwable t, Settings s) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        if (s.password() != null && !s.password().isEmpty()) m = m.replace(s.password(), "<redacted>");
        return m;
    }
}
