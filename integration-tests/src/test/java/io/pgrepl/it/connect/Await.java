package io.pgrepl.it.connect;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgrepl.client.PgException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Blocking helpers for tests (test threads only, never an event loop). */
public final class Await {
    private Await() {}

    public static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    /** The exception the stage failed with; fails the test if it succeeded. */
    public static Throwable failure(CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(60, TimeUnit.SECONDS));
        return e.getCause();
    }

    public static PgException serverError(CompletionStage<?> stage, String sqlState) {
        Throwable t = failure(stage);
        PgException pe = assertInstanceOf(PgException.class, t, () -> "expected a server error " + sqlState + ", got " + t);
        if (!sqlState.equals(pe.sqlState())) {
            throw new AssertionError("expected SQLSTATE " + sqlState + ", got " + pe.getMessage());
        }
        return pe;
    }
}
