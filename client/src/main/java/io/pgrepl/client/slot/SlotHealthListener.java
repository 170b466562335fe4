package io.pgrepl.client.slot;

import java.util.List;

/**
 * Told of every poll of a {@link SlotMonitor}, on the monitor's own thread (never an event loop):
 * a listener may take a little time, but a slow one delays the next poll.
 */
public interface SlotHealthListener {
    /**
     * A poll succeeded.
     *
     * @param slots the monitored slots the server has, ordered by name (a slot that was dropped is absent)
     */
    void onHealth(List<SlotHealth> slots);

    /**
     * A poll failed (the monitoring connection could not be opened, broke or timed out); the monitor
     * reconnects at the next interval.
     *
     * @param error               what failed
     * @param consecutiveFailures polls failed in a row, from 1
     */
    default void onMonitorError(Throwable error, int consecutiveFailures) {}

    /** The monitor polled again after failed polls, on a new connection. */
    default void onMonitorRecovered() {}
}
