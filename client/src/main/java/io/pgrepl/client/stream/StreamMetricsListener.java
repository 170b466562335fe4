package io.pgrepl.client.stream;

/** Receives a metrics snapshot after every status update the stream sends (event loop; keep it quick). */
@FunctionalInterface
public interface StreamMetricsListener {
    void onMetrics(StreamMetrics metrics);
}
