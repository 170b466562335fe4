package io.pgrepl.client.stream;

import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A stream's clock (event loop only): the timer that sends a standby status update every status
 * interval, asks a silent server for a keepalive at half the receive timeout and gives up on it at
 * the whole, and the paced answers to keepalives that ask for a reply. Apart from
 * {@link CopyBothStream}, which speaks the protocol, because when to speak is a question of its own.
 */
final class StatusTimer {
    /** At most one keepalive reply per this long; see {@link #replyToKeepalive()}. */
    private static final long MIN_REPLY_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final CopyBothStream stream;
    private final Duration statusInterval;
    private final Duration receiveTimeout;
    private ScheduledFuture<?> ticker;
    private long lastStatusNanos;
    private long lastReceiveNanos;
    private boolean pingSent;
    private boolean replyOwed;

    StatusTimer(CopyBothStream stream, Duration statusInterval, Duration receiveTimeout) {
        this.stream = stream;
        this.statusInterval = statusInterval;
        this.receiveTimeout = receiveTimeout;
    }

    /** Copy mode began: the timer runs from now. */
    void start() {
        lastStatusNanos = System.nanoTime();
        long period = Math.max(50, Math.min(1000, statusInterval.toMillis()));
        if (receiveTimeout != null) period = Math.max(10, Math.min(period, receiveTimeout.toMillis() / 4));
        ticker = stream.loop.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    void cancel() {
        if (ticker != null) {
            ticker.cancel(false);
            ticker = null;
        }
    }

    /**
     * A frame arrived, or reading starts again after a pause: the receive timeout counts from now
     * and a pending ping is answered.
     */
    void received() {
        lastReceiveNanos = System.nanoTime();
        pingSent = false;
    }

    /** A status update went out. */
    void sent() {
        replyOwed = false;
        lastStatusNanos = System.nanoTime();
    }

    /** {@return when the last frame arrived, in {@link System#nanoTime()}} */
    long lastReceiveNanos() {
        return lastReceiveNanos;
    }

    /**
     * Answers a reply-requested keepalive now, or within {@link #MIN_REPLY_GAP_NANOS} of the last
     * update. A walsender waiting for the client's flush at shutdown asks again as soon as it gets
     * an answer: answering each at once ping-pongs 20-90 thousand times a second (seen on 10-18)
     * for as long as the application takes to acknowledge. The gap caps it near 100/s, far inside
     * any wal_sender_timeout, and the deferred answer carries the newest acknowledgement.
     */
    void replyToKeepalive() {
        long wait = lastStatusNanos + MIN_REPLY_GAP_NANOS - System.nanoTime();
        if (wait <= 0) {
            stream.sendStatusUpdate(false);
        } else if (!replyOwed) {
            replyOwed = true;
            stream.loop.schedule(() -> {
                if (replyOwed) stream.sendStatusUpdate(false);
            }, wait, TimeUnit.NANOSECONDS);
        }
    }

    private void tick() {
        if (stream.state != CopyBothStream.State.STREAMING) return;
        long now = System.nanoTime();
        // Paused, the silence is ours (nothing is read), not the server's: no timeout, no ping.
        // Status updates go on so that the walsender's own timeout does not fire.
        if (stream.paused) {
            if (now - lastStatusNanos >= statusInterval.toNanos()) stream.sendStatusUpdate(false);
            return;
        }
        if (receiveTimeout != null && now - lastReceiveNanos > receiveTimeout.toNanos()) {
            stream.failNow(new ReplicationConnectionLostException("nothing received for " + receiveTimeout.toMillis()
                    + " ms (receive timeout)", null));
            return;
        }
        if (receiveTimeout != null && !pingSent && now - lastReceiveNanos > receiveTimeout.toNanos() / 2) {
            // A walsender whose client confirms everything has nothing to say (no keepalives while
            // the client keeps replying): ask for one, so that silence means a dead peer, not an idle one.
            pingSent = true;
            stream.sendStatusUpdate(true);
            return;
        }
        if (now - lastStatusNanos >= statusInterval.toNanos()) stream.sendStatusUpdate(false);
    }
}
