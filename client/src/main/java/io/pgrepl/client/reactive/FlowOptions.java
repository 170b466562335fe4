package io.pgrepl.client.reactive;

import io.pgrepl.client.tx.AssemblerOptions;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * How a replication publisher buffers and delivers.
 *
 * @param highWatermark   queued events above which socket reading pauses
 * @param lowWatermark    queued events at or below which it resumes
 * @param executor        where subscriber signals run; null = a dedicated daemon thread per subscription;
 *                        {@link #EVENT_LOOP} = the stream's own event loop ({@link #withEventLoopDelivery()})
 * @param autoAcknowledge acknowledge each event right after the subscriber's onNext returns
 *                        (off by default: call {@code acknowledge()} once the event is durable)
 * @param assembler       options of the transaction publisher's assembler
 */
public record FlowOptions(int highWatermark, int lowWatermark, Executor executor, boolean autoAcknowledge,
                          AssemblerOptions assembler) {
    /**
     * Stands for the stream's own event loop as the {@link #executor()}: see
     * {@link #withEventLoopDelivery()}. A {@link ReplicationPublisher} replaces it by its
     * connection's loop. A publisher that does not know it (the snapshot publisher) runs it as
     * it is: signals inline on the signalling thread, serially, like {@code Runnable::run}, rather
     * than failing the subscription.
     */
    public static final Executor EVENT_LOOP = new Executor() {
        @Override
        public void execute(Runnable command) {
            command.run();
        }

        @Override
        public String toString() {
            return "FlowOptions.EVENT_LOOP";
        }
    };

    /**
     * Checks the watermarks.
     *
     * @param highWatermark   queued events above which socket reading pauses
     * @param lowWatermark    queued events at or below which it resumes
     * @param executor        where subscriber signals run; null = a dedicated daemon thread per subscription
     * @param autoAcknowledge acknowledge each event right after the subscriber's onNext returns
     * @param assembler       options of the transaction publisher's assembler, not null
     * @throws IllegalArgumentException unless 0 &lt;= lowWatermark &lt; highWatermark
     */
    public FlowOptions {
        if (highWatermark < 1 || lowWatermark < 0 || lowWatermark >= highWatermark) {
            throw new IllegalArgumentException("need 0 <= lowWatermark < highWatermark");
        }
        Objects.requireNonNull(assembler, "assembler");
    }

    /**
     * 1024/256 events, a dedicated thread, no auto-acknowledge, default assembler options.
     *
     * @return the defaults
     */
    public static FlowOptions defaults() {
        return new FlowOptions(1024, 256, null, false, AssemblerOptions.defaults());
    }

    /**
     * The same options with other watermarks.
     *
     * @param high queued events above which socket reading pauses
     * @param low  queued events at or below which it resumes
     * @return the new options
     */
    public FlowOptions withWatermarks(int high, int low) {
        return new FlowOptions(high, low, executor, autoAcknowledge, assembler);
    }

    /**
     * The same options with another executor for subscriber signals.
     *
     * @param e the executor; null for a dedicated daemon thread per subscription
     * @return the new options
     */
    public FlowOptions withExecutor(Executor e) {
        return new FlowOptions(highWatermark, lowWatermark, e, autoAcknowledge, assembler);
    }

    /**
     * The same options delivering on the stream's event loop, with no thread of the publisher's
     * own: the subscriber's signals run on the loop, right after the socket read that brought
     * the changes (one pass per read, in order, up to demand), and a {@code request} made on
     * another thread resumes delivery on the loop, never on the calling thread. It saves a thread
     * wake per read; in exchange the subscriber must never block in its signals: while it runs,
     * the loop reads nothing and answers no keepalive (a subscriber that blocks longer than the
     * server's {@code wal_sender_timeout} loses the connection), and other connections on the
     * same loop wait too. Hand the work to a thread of your own (Reactor's {@code publishOn}) or
     * keep the default delivery thread when it may block. Demand and the watermarks bound the
     * queue as with any executor.
     *
     * @return the new options
     */
    public FlowOptions withEventLoopDelivery() {
        return withExecutor(EVENT_LOOP);
    }

    /** {@return whether signals run on the stream's event loop ({@link #withEventLoopDelivery()})} */
    public boolean eventLoopDelivery() {
        return executor == EVENT_LOOP;
    }

    /**
     * The same options with auto-acknowledge on or off.
     *
     * @param v acknowledge each event right after onNext returns
     * @return the new options
     */
    public FlowOptions withAutoAcknowledge(boolean v) {
        return new FlowOptions(highWatermark, lowWatermark, executor, v, assembler);
    }

    /**
     * The same options with other transaction assembler options.
     *
     * @param a the assembler options
     * @return the new options
     */
    public FlowOptions withAssembler(AssemblerOptions a) {
        return new FlowOptions(highWatermark, lowWatermark, executor, autoAcknowledge, a);
    }
}
