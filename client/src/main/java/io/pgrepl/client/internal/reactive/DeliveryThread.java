package io.pgrepl.client.internal.reactive;

import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One publisher's own delivery thread: runs tasks in order on a single daemon thread that parks
 * when it has nothing to do, woken by a direct unpark. It replaces a one-thread
 * {@code ThreadPoolExecutor}, whose blocking queue takes a lock and allocates a node on every wake
 * (the wake itself, a futex call, is the same). A thread idle for {@code idleMillis} ends, so a
 * finished publisher leaves nothing behind, and the next task starts a new one.
 *
 * <p>Wakes: {@link #execute} unparks only a thread that is parked or about to park; one that is
 * running finds the task before it parks (it re-reads the queue after announcing it will park).
 */
public final class DeliveryThread implements Executor {
    private static final int NONE = 0;
    private static final int RUNNING = 1;
    private static final int PARKING = 2;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Queue<Runnable> tasks = PlatformDependent.newMpscQueue();
    private final AtomicInteger state = new AtomicInteger(NONE);
    private final String name;
    private final long idleNanos;
    private volatile Thread thread;

    /**
     * @param namePrefix the thread's name, numbered
     * @param idleMillis how long the thread waits for work before it ends
     */
    public DeliveryThread(String namePrefix, long idleMillis) {
        this.name = namePrefix + THREADS.incrementAndGet();
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
    }

    @Override
    public void execute(Runnable task) {
        if (!tasks.offer(task)) throw new java.util.concurrent.RejectedExecutionException("delivery queue full");
        for (;;) {
            int s = state.get();
            if (s == RUNNING) return;
            if (s == PARKING && state.compareAndSet(PARKING, RUNNING)) {
                LockSupport.unpark(thread);
                return;
            }
            if (s == NONE && state.compareAndSet(NONE, RUNNING)) {
                Thread t = new Thread(this::run, name);
                t.setDaemon(true);
                thread = t;
                t.start();
                return;
            }
        }
    }

    private void run() {
        for (;;) {
            Runnable r;
            while ((r = tasks.poll()) != null) {
                try {
                    r.run();
                } catch (RuntimeException | Error ignored) {
                    // a task's failure is its own (FlowBuffer catches the subscriber's); keep serving
                }
            }
            state.set(PARKING);
            if (!tasks.isEmpty()) {
                state.set(RUNNING); // an execute() may have set it already: either way, run on
                continue;
            }
            long deadline = System.nanoTime() + idleNanos;
            while (state.get() == PARKING) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    // Idle: end, unless an execute() claimed this thread first (then it holds RUNNING).
                    if (state.compareAndSet(PARKING, NONE)) return;
                    break;
                }
                LockSupport.parkNanos(this, left);
            }
            // woken: execute() set RUNNING and unparked
        }
    }
}
