package io.pgrepl.client.stream;

/** Receives a metrics snapshot after every status update the stream sends (event loop; keep it quick). */
@FunctionalInterface
public interface StreamMetricsListener {
    /**
     * Called on the event loop after a status update was sent.
     *
     * @param metrics the stream's counters at that moment
     */
    void onMetrics(StreamMetrics metrics);
}
