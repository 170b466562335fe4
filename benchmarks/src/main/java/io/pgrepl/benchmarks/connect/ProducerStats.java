package io.pgrepl.benchmarks.connect;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The task's producer as its own metrics (JMX) saw the last minute of a run. Connect's worker pins its
 * producers to {@code acks=all} and {@code max.in.flight.requests.per.connection=1}, so a single-partition
 * topic moves one batch of at most {@code batch.size} bytes per round trip: records per request and the
 * request latency bound the rows/s, and {@code bufferWaitRatio} says how much of the time the task
 * thread's {@code send()} was blocked waiting for room in the producer's buffer.
 */
record ProducerStats(double recordSizeAvg, double batchSizeAvg, double recordsPerRequestAvg, double requestLatencyAvgMs,
                     double bufferWaitRatio, double queueTimeAvgMs) {

    static final ProducerStats NONE = new ProducerStats(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** The producer of task 0 of {@code connector}; {@link #NONE} if it is not registered. */
    static ProducerStats of(String connector) {
        try {
            MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("kafka.producer:type=producer-metrics,client-id=connector-producer-" + connector + "-0");
            if (!mbs.isRegistered(name)) return NONE;
            return new ProducerStats(get(mbs, name, "record-size-avg"), get(mbs, name, "batch-size-avg"),
                    get(mbs, name, "records-per-request-avg"), get(mbs, name, "request-latency-avg"),
                    get(mbs, name, "bufferpool-wait-ratio"), get(mbs, name, "record-queue-time-avg"));
        } catch (Exception e) {
            return NONE;
        }
    }

    private static double get(MBeanServer mbs, ObjectName name, String attribute) throws Exception {
        Object v = mbs.getAttribute(name, attribute);
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    @Override
    public String toString() {
        return String.format("producer: record %.0f B, batch %.0f B, %.1f records/request, request %.2f ms, "
                        + "buffer wait %.2f, queue time %.1f ms",
                recordSizeAvg, batchSizeAvg, recordsPerRequestAvg, requestLatencyAvgMs, bufferWaitRatio, queueTimeAvgMs);
    }
}
