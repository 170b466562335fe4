package io.pgrepl.debezium.compat;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The first failure of pgrepl's connector during the running test: a configuration it refused
 * (validate or start), or its task failing. {@link FailFast} reads it; the shim writes it.
 */
public final class ConnectorFailures {
    private ConnectorFailures() {}

    record Failure(String message, long atNanos) {}

    private static final AtomicReference<Failure> FIRST = new AtomicReference<>();

    public static void record(String where, Throwable t) {
        record(where + ": " + t.getClass().getSimpleName() + ": " + t.getMessage());
    }

    public static void record(String message) {
        FIRST.compareAndSet(null, new Failure(message.replace('\n', ' '), System.nanoTime()));
    }

    static Failure first() {
        return FIRST.get();
    }

    static void reset() {
        FIRST.set(null);
    }
}
