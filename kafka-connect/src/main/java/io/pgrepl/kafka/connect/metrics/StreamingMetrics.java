package io.pgrepl.kafka.connect.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replication stream's figures: connected, the lag of the last event (its commit time, {@code
 * source.ts_us}, to its hand-over), transactions (a change of {@code source.txId}, as Debezium counts
 * them), the last position; creates, updates, deletes and truncates per table with
 * advanced.metrics.enable, as Debezium.
 */
final class StreamingMetrics extends PipelineMetrics implements StreamingMetricsMXBean {
    private volatile boolean connected;
    private final AtomicLong transactions = new AtomicLong();
    /** The last event's txId; its string, and the position's map, are made only when read. */
    private volatile Long lastTransactionId;
    private volatile EventCounters.Event positioned;
    private final Lag lag = new Lag();
    private volatile boolean paused;
    /** advanced.metrics.enable: whether the per-table maps are kept. */
    private final boolean perTable;
    private final Map<String, Long> creates = new ConcurrentHashMap<>();
    private final Map<String, Long> updates = new ConcurrentHashMap<>();
    private final Map<String, Long> deletes = new ConcurrentHashMap<>();
    private final Map<String, Long> truncates = new ConcurrentHashMap<>();

    StreamingMetrics(boolean perTable) {
        this.perTable = perTable;
    }

    void connected(boolean c) {
        connected = c;
    }

    @Override
    void event(EventCounters.Event e, long now) {
        if (e.source("ts_us") instanceof Long micros) lag.add(now - micros / 1000);
        else if (e.source("ts_ms") instanceof Long millis) lag.add(now - millis);
        if (e.source("txId") instanceof Long tx && !tx.equals(lastTransactionId)) {
            lastTransactionId = tx;
            transactions.incrementAndGet();
        }
        if (e.source("lsn") != null) positioned = e;
        String t = e.table();
        if (!perTable || paused || t == null) return;
        Map<String, Long> perTable = switch (e.op()) {
            case "c" -> creates;
            case "u" -> updates;
            case "d" -> deletes;
            case "t" -> truncates;
            default -> null;
        };
        if (perTable != null) perTable.merge(t, 1L, Long::sum);
    }

    @Override public boolean isConnected() { return connected; }
    @Override
    public Map<String, String> getSourceEventPosition() {
        EventCounters.Event e = positioned;
        return e == null ? Map.of() : EventCounters.position(e);
    }

    @Override
    public long getMilliSecondsBehindSource() {
        Long last = lag.last();
        return last == null ? -1 : last;
    }

    @Override public long getNumberOfCommittedTransactions() { return transactions.get(); }
    @Override
    public String getLastTransactionId() {
        Long tx = lastTransactionId;
        return tx == null ? null : tx.toString();
    }
    @Override public void resetLagBehindSource() { lag.reset(); }
    @Override public long getNumberOfUnchangedEventsSkipped() { return -1; }
    @Override public Long getMilliSecondsBehindSourceMinValue() { return lag.min(); }
    @Override public Long getMilliSecondsBehindSourceMaxValue() { return lag.max(); }
    @Override public Double getMilliSecondsBehindSourceAverageValue() { return lag.average(); }
    @Override public Double getMilliSecondsBehindSourceP50() { return lag.quantile(0.50); }
    @Override public Double getMilliSecondsBehindSourceP95() { return lag.quantile(0.95); }
    @Override public Double getMilliSecondsBehindSourceP99() { return lag.quantile(0.99); }
    @Override public Map<String, Long> getNumberOfCreateEventsSeen() { return Map.copyOf(creates); }
    @Override public Map<String, Long> getNumberOfDeleteEventsSeen() { return Map.copyOf(deletes); }
    @Override public Map<String, Long> getNumberOfUpdateEventsSeen() { return Map.copyOf(updates); }
    @Override public Map<String, Long> getNumberOfTruncateEventsSeen() { return Map.copyOf(truncates); }
    @Override public void pause() { paused = true; }
    @Override public void resume() { paused = false; }

    @Override
    public void reset() {
        super.reset();
        lag.reset();
        transactions.set(0);
        positioned = null;
        lastTransactionId = null;
        connected = false;
        paused = false;
        creates.clear();
        updates.clear();
        deletes.clear();
        truncates.clear();
    }

    /**
     * The last, smallest, largest and mean lag in milliseconds, and quantiles of the latest
     * {@value #RECENT} (Debezium's sketch keeps all since the last reset); all null before the first.
     */
    private static final class Lag {
        private static final int RECENT = 4096;
        private final long[] recent = new long[RECENT];
        private long last;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;
        private long sum;
        private long count;

        synchronized void add(long millis) {
            last = millis;
            min = Math.min(min, millis);
            max = Math.max(max, millis);
            recent[(int) (count % RECENT)] = millis;
            sum += millis;
            count++;
        }

        synchronized Double quantile(double q) {
            if (count == 0) return null;
            long[] v = java.util.Arrays.copyOf(recent, (int) Math.min(count, RECENT));
            java.util.Arrays.sort(v);
            return (double) v[Math.max(0, (int) Math.ceil(q * v.length) - 1)];
        }

        synchronized Long last() { return count == 0 ? null : last; }
        synchronized Long min() { return count == 0 ? null : min; }
        synchronized Long max() { return count == 0 ? null : max; }
        synchronized Double average() { return count == 0 ? null : (double) sum / count; }

        synchronized void reset() {
            last = 0;
            min = Long.MAX_VALUE;
            max = Long.MIN_VALUE;
            sum = 0;
            count = 0;
        }
    }
}
