package io.pgrepl.client.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where expensive SCRAM key derivation runs instead of the event loop. From PG16 a role's
 * {@code scram_iterations} can be raised up to the client's cap of 10M: seconds of PBKDF2 that
 * would stall every other connection sharing the loop. Two daemon threads at most; idle ones die.
 */
final class KeyDerivation {
    /** Below this, PBKDF2 costs about as much as a thread hop; PostgreSQL's default is 4096. */
    static final int OFFLOAD_ITERATIONS = 50_000;

    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final ExecutorService EXECUTOR = create();

    private KeyDerivation() {}

    private static ExecutorService create() {
        int threads = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
        ThreadPoolExecutor e = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "pgrepl-scram-" + COUNT.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        e.allowCoreThreadTimeOut(true);
        return e;
    }

    static ExecutorService executor() {
        return EXECUTOR;
    }
}
