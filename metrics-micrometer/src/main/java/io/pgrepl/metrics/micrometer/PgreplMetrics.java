package io.pgrepl.metrics.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.StreamMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters over a logical replication stream's {@link StreamMetrics}, tagged
 * {@code slot=<slot name>} plus the caller's tags. Meters are functions: nothing is recorded on
 * the event loop, values are read when the registry publishes (see {@link StreamMetricsSource}
 * for how fresh they are). The stream's {@code metricsListener} stays free for the application.
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><td>{@value #MESSAGES}</td><td>function counter</td><td>XLogData messages received</td></tr>
 * <tr><td>{@value #BYTES}</td><td>function counter, bytes</td><td>XLogData data bytes (headers excluded)</td></tr>
 * <tr><td>{@value #TRANSACTIONS}</td><td>function counter</td><td>commits received</td></tr>
 * <tr><td>{@value #STATUS_UPDATES}</td><td>function counter</td><td>StandbyStatusUpdates sent</td></tr>
 * <tr><td>{@value #LAG}</td><td>gauge, bytes</td><td>server WAL end minus the flush position last sent</td></tr>
 * <tr><td>{@value #IDLE}</td><td>time gauge</td><td>time since anything arrived from the server</td></tr>
 * <tr><td>{@value #LSN}</td><td>gauge, tag {@code position}: received, server_wal_end, acknowledged, flushed</td>
 *     <td>WAL positions as numbers (exact below 2^53 bytes of WAL)</td></tr>
 * <tr><td>{@value #RECONNECTS}</td><td>function counter</td><td>only for a {@link ReconnectingLogicalStream}</td></tr>
 * </table>
 * Gauges read NaN until the stream has a snapshot. Counters are carried across reconnects.
 */
public final class PgreplMetrics implements AutoCloseable {
    /** Counter: XLogData messages received. */
    public static final String MESSAGES = "pgrepl.stream.messages";
    /** Counter: XLogData data bytes received (headers excluded). */
    public static final String BYTES = "pgrepl.stream.bytes";
    /** Counter: transactions (commits) received. */
    public static final String TRANSACTIONS = "pgrepl.stream.transactions";
    /** Counter: standby status updates sent. */
    public static final String STATUS_UPDATES = "pgrepl.stream.status.updates";
    /** Gauge: the server's WAL end minus the flush position confirmed to it, in bytes. */
    public static final String LAG = "pgrepl.stream.lag";
    /** Time gauge: time since anything arrived from the server. */
    public static final String IDLE = "pgrepl.stream.idle";
    /** Gauge: a WAL position as a byte offset, one per {@code position} tag. */
    public static final String LSN = "pgrepl.stream.lsn";
    /** Function counter: reconnections of a reconnecting stream. */
    public static final String RECONNECTS = "pgrepl.stream.reconnects";

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    private PgreplMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Binds one stream (one connection); tags: {@code slot} and {@code tags}.
     *
     * @param stream   the stream to observe
     * @param registry where the meters are registered
     * @param tags     extra tags for every meter
     * @return the binding; {@link #close()} removes its meters
     */
    public static PgreplMetrics bind(LogicalReplicationStream stream, MeterRegistry registry, Iterable<Tag> tags) {
        Objects.requireNonNull(stream, "stream");
        Tags all = Tags.of(tags).and("slot", stream.options().slotName());
        PgreplMetrics m = new PgreplMetrics(registry);
        m.register(new StreamMetricsSource(() -> stream), all);
        return m;
    }

    /**
     * Binds a reconnecting stream: meters follow {@link ReconnectingLogicalStream#current()},
     * counters keep counting across connections. {@code slot} is the tag value (the slot the
     * stream's options name).
     *
     * @param stream   the reconnecting stream to observe
     * @param slot     the {@code slot} tag's value
     * @param registry where the meters are registered
     * @param tags     extra tags for every meter
     * @return the binding; {@link #close()} removes its meters
     */
    public static PgreplMetrics bind(ReconnectingLogicalStream stream, String slot, MeterRegistry registry,
                                     Iterable<Tag> tags) {
        Objects.requireNonNull(stream, "stream");
        Tags all = Tags.of(tags).and("slot", Objects.requireNonNull(slot, "slot"));
        PgreplMetrics m = new PgreplMetrics(registry);
        m.register(new StreamMetricsSource(stream::current), all);
        m.meters.add(FunctionCounter.builder(RECONNECTS, stream, ReconnectingLogicalStream::reconnects)
                .description("reconnections of the replication stream").tags(all).register(registry));
        return m;
    }

    private void register(StreamMetricsSource source, Tags tags) {
        counter(source, tags, MESSAGES, "XLogData messages received", null, StreamMetrics::messages);
        counter(source, tags, BYTES, "XLogData data bytes received (headers excluded)", BaseUnits.BYTES,
                StreamMetrics::bytes);
        counter(source, tags, TRANSACTIONS, "transactions (commits) received", null, StreamMetrics::transactions);
        counter(source, tags, STATUS_UPDATES, "standby status updates sent", null, StreamMetrics::statusUpdatesSent);
        gauge(source, tags, LAG, "server WAL end minus the flush position confirmed to the server", BaseUnits.BYTES,
                StreamMetrics::lagBytes);
        meters.add(TimeGauge.builder(IDLE, source, TimeUnit.MILLISECONDS, s -> read(s, StreamMetrics::millisSinceLastMessage))
                .description("time since anything arrived from the server").tags(tags).strongReference(true)
                .register(registry));
        lsn(source, tags, "received", StreamMetrics::receivedLsn);
        lsn(source, tags, "server_wal_end", StreamMetrics::serverWalEnd);
        lsn(source, tags, "acknowledged", StreamMetrics::acknowledgedLsn);
        lsn(source, tags, "flushed", StreamMetrics::flushedLsn);
    }

    private void counter(StreamMetricsSource source, Tags tags, String name, String description, String unit,
                         ToDoubleFunction<StreamMetrics> f) {
        meters.add(FunctionCounter.builder(name, source, s -> {
                    StreamMetrics m = s.get();
                    return m == null ? 0 : f.applyAsDouble(m);
                })
                .description(description).baseUnit(unit).tags(tags).register(registry));
    }

    private void gauge(StreamMetricsSource source, Tags tags, String name, String description, String unit,
                       ToDoubleFunction<StreamMetrics> f) {
        meters.add(Gauge.builder(name, source, s -> read(s, f)).description(description).baseUnit(unit).tags(tags)
                .strongReference(true).register(registry));
    }

    private void lsn(StreamMetricsSource source, Tags tags, String position, ToDoubleFunction<StreamMetrics> f) {
        gauge(source, tags.and("position", position), LSN, "WAL position (byte offset)", BaseUnits.BYTES, f);
    }

    private static double read(StreamMetricsSource s, ToDoubleFunction<StreamMetrics> f) {
        StreamMetrics m = s.get();
        return m == null ? Double.NaN : f.applyAsDouble(m);
    }

    /**
     * The meters this binding registered.
     *
     * @return a copy of the list
     */
    public List<Meter> meters() {
        return List.copyOf(meters);
    }

    /** Removes the meters from the registry. */
    @Override
    public void close() {
        for (Meter m : meters) registry.remove(m);
        meters.clear();
    }
}
