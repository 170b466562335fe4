package io.pgrepl.client.internal.auth;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where blocking OAuth token suppliers run: an identity provider round trip can take seconds and
 * must not stall the event loop that serves other connections. Threads are created on demand (a
 * reconnect storm of many streams must not queue behind one slow provider call), are daemons and
 * die when idle.
 */
public final class TokenThreads {
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final ExecutorService EXECUTOR = create();

    private TokenThreads() {}

    private static ExecutorService create() {
        ThreadPoolExecutor e = new ThreadPoolExecutor(0, 64, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "pgrepl-oauth-token-" + COUNT.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        return e;
    }

    /** {@return the executor for blocking token suppliers} */
    public static ExecutorService executor() {
        return EXECUTOR;
    }
}
