package io.pgrepl.metrics.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotHealthListener;
import io.pgrepl.client.slot.SlotMonitor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters over a {@link SlotMonitor}'s polls: one set per slot the monitor sees, tagged
 * {@code slot} and {@code database} (empty for a physical slot) plus the caller's tags; a slot's
 * meters are added at the first poll that shows it and removed when it is gone. Values are those of
 * the last successful poll (so at most one interval old); a value the server's major does not
 * have reads NaN.
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><td>{@value #RETAINED_WAL}</td><td>gauge, bytes</td><td>current LSN − restart_lsn: WAL kept for the slot</td></tr>
 * <tr><td>{@value #SAFE_WAL_SIZE}</td><td>gauge, bytes</td><td>safe_wal_size (13+): WAL that may still be written
 *     before the slot is at risk; NaN when max_slot_wal_keep_size is -1</td></tr>
 * <tr><td>{@value #WAL_STATUS}</td><td>gauge per {@code state} tag (reserved, extended, unreserved, lost)</td>
 *     <td>1 for the slot's wal_status (13+), 0 for the others</td></tr>
 * <tr><td>{@value #LAG_BYTES}</td><td>gauge, bytes</td><td>current LSN − confirmed_flush_lsn (logical slots)</td></tr>
 * <tr><td>{@value #LAG_SECONDS}</td><td>time gauge</td><td>replay_lag of the slot's walsender; NaN when none</td></tr>
 * <tr><td>{@value #INACTIVE_SECONDS}</td><td>time gauge</td><td>now − inactive_since (17+); NaN while active</td></tr>
 * <tr><td>{@value #ACTIVE}</td><td>gauge</td><td>1 while a walsender streams from the slot</td></tr>
 * <tr><td>{@value #SPILL_BYTES}, {@value #SPILL_TXNS}, {@value #STREAM_BYTES}</td><td>function counters</td>
 *     <td>pg_stat_replication_slots (14+), cumulative since its stats_reset</td></tr>
 * <tr><td>{@value #MONITOR_FAILURES}</td><td>function counter, no slot tag</td><td>failed polls</td></tr>
 * </table>
 */
public final class SlotMetrics implements SlotHealthListener, AutoCloseable {
    /** Gauge, bytes: WAL retained for the slot. */
    public static final String RETAINED_WAL = "pgrepl.slot.retained.wal";
    /** Gauge, bytes: safe_wal_size. */
    public static final String SAFE_WAL_SIZE = "pgrepl.slot.safe.wal.size";
    /** State gauge, tag {@code state}: wal_status. */
    public static final String WAL_STATUS = "pgrepl.slot.wal.status";
    /** Gauge, bytes: decoding lag. */
    public static final String LAG_BYTES = "pgrepl.slot.lag.bytes";
    /** Time gauge: the walsender's replay_lag. */
    public static final String LAG_SECONDS = "pgrepl.slot.lag.seconds";
    /** Time gauge: time since the slot became inactive (17+). */
    public static final String INACTIVE_SECONDS = "pgrepl.slot.inactive.seconds";
    /** Gauge: 1 while active. */
    public static final String ACTIVE = "pgrepl.slot.active";
    /** Function counter, bytes: spilled to disk while decoding. */
    public static final String SPILL_BYTES = "pgrepl.slot.spill.bytes";
    /** Function counter: transactions spilled to disk. */
    public static final String SPILL_TXNS = "pgrepl.slot.spill.txns";
    /** Function counter, bytes: in-progress transactions streamed. */
    public static final String STREAM_BYTES = "pgrepl.slot.stream.bytes";
    /** Function counter: failed polls of the monitor. */
    public static final String MONITOR_FAILURES = "pgrepl.slot.monitor.failures";

    private static final List<String> WAL_STATES = List.of("reserved", "extended", "unreserved", "lost");

    private final SlotMonitor monitor;
    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, SlotHealth> current = new ConcurrentHashMap<>();
    private final Map<String, List<Meter>> bySlot = new HashMap<>(); // monitor thread, and close()
    private final AtomicInteger failures = new AtomicInteger();
    private final Meter failuresMeter;

    private SlotMetrics(SlotMonitor monitor, MeterRegistry registry, Tags tags) {
        this.monitor = monitor;
        this.registry = registry;
        this.tags = tags;
        this.failuresMeter = FunctionCounter.builder(MONITOR_FAILURES, failures, AtomicInteger::get)
                .description("failed polls of the slot monitor").tags(tags).register(registry);
    }

    /**
     * Registers the meters of every slot {@code monitor} polls, from its next poll on.
     *
     * @param monitor  the monitor
     * @param registry where the meters are registered
     * @param tags     extra tags for every meter
     * @return the binding; {@link #close()} removes its meters and stops listening
     */
    public static SlotMetrics bind(SlotMonitor monitor, MeterRegistry registry, Iterable<Tag> tags) {
        SlotMetrics m = new SlotMetrics(monitor, registry, Tags.of(tags));
        for (SlotHealth h : monitor.latest()) m.current.put(h.slotName(), h);
        m.sync();
        monitor.addListener(m);
        return m;
    }

    @Override
    public void onHealth(List<SlotHealth> slots) {
        Set<String> seen = new HashSet<>();
        for (SlotHealth h : slots) {
            current.put(h.slotName(), h);
            seen.add(h.slotName());
        }
        current.keySet().retainAll(seen);
        sync();
    }

    @Override
    public void onMonitorError(Throwable error, int consecutiveFailures) {
        failures.incrementAndGet();
    }

    private synchronized void sync() {
        for (var it = bySlot.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!current.containsKey(e.getKey())) {
                e.getValue().forEach(registry::remove);
                it.remove();
            }
        }
        for (SlotHealth h : current.values()) {
            if (!bySlot.containsKey(h.slotName())) bySlot.put(h.slotName(), register(h));
        }
    }

    private List<Meter> register(SlotHealth first) {
        String slot = first.slotName();
        Tags t = tags.and("slot", slot).and("database", first.database() == null ? "" : first.database());
        List<Meter> meters = new ArrayList<>();
        meters.add(gauge(slot, t, RETAINED_WAL, "WAL retained for the slot (current LSN - restart_lsn)", BaseUnits.BYTES,
                h -> num(h.retainedWal())));
        meters.add(gauge(slot, t, SAFE_WAL_SIZE, "WAL that may still be written before the slot is at risk (safe_wal_size)",
                BaseUnits.BYTES, h -> num(h.safeWalSize())));
        for (String state : WAL_STATES) {
            meters.add(gauge(slot, t.and("state", state), WAL_STATUS, "1 for the slot's wal_status", null,
                    h -> h.walStatus() == null ? Double.NaN : state.equals(h.walStatus()) ? 1 : 0));
        }
        meters.add(gauge(slot, t, LAG_BYTES, "current LSN - confirmed_flush_lsn", BaseUnits.BYTES, h -> num(h.lagBytes())));
        meters.add(timeGauge(slot, t, LAG_SECONDS, "replay_lag of the slot's walsender", h -> num(h.lagSeconds())));
        meters.add(timeGauge(slot, t, INACTIVE_SECONDS, "time since the slot became inactive (17+)",
                h -> h.active() ? Double.NaN : num(h.inactiveSeconds())));
        meters.add(gauge(slot, t, ACTIVE, "1 while a walsender streams from the slot", null, h -> h.active() ? 1 : 0));
        meters.add(counter(slot, t, SPILL_BYTES, "bytes spilled to disk while decoding", BaseUnits.BYTES,
                h -> h.spill() == null ? 0 : h.spill().spillBytes()));
        meters.add(counter(slot, t, SPILL_TXNS, "transactions spilled to disk while decoding", null,
                h -> h.spill() == null ? 0 : h.spill().spillTxns()));
        meters.add(counter(slot, t, STREAM_BYTES, "bytes of in-progress transactions streamed", BaseUnits.BYTES,
                h -> h.spill() == null ? 0 : h.spill().streamBytes()));
        return meters;
    }

    private Meter gauge(String slot, Tags t, String name, String description, String unit, ToDoubleFunction<SlotHealth> f) {
        return Gauge.builder(name, current, m -> read(m, slot, f)).description(description).baseUnit(unit).tags(t)
                .strongReference(true).register(registry);
    }

    private Meter timeGauge(String slot, Tags t, String name, String description, ToDoubleFunction<SlotHealth> f) {
        return TimeGauge.builder(name, current, TimeUnit.SECONDS, m -> read(m, slot, f)).description(description).tags(t)
                .strongReference(true).register(registry);
    }

    private Meter counter(String slot, Tags t, String name, String description, String unit, ToDoubleFunction<SlotHealth> f) {
        return FunctionCounter.builder(name, current, m -> {
                    SlotHealth h = m.get(slot);
                    return h == null ? 0 : f.applyAsDouble(h);
                }).description(description).baseUnit(unit).tags(t).register(registry);
    }

    private static double read(Map<String, SlotHealth> m, String slot, ToDoubleFunction<SlotHealth> f) {
        SlotHealth h = m.get(slot);
        return h == null ? Double.NaN : f.applyAsDouble(h);
    }

    private static double num(Number n) {
        return n == null ? Double.NaN : n.doubleValue();
    }

    /** {@return the meters registered now (all slots, and the failure counter)} */
    public synchronized List<Meter> meters() {
        List<Meter> all = new ArrayList<>();
        all.add(failuresMeter);
        bySlot.values().forEach(all::addAll);
        return all;
    }

    /** Stops listening and removes the meters. */
    @Override
    public synchronized void close() {
        monitor.removeListener(this);
        bySlot.values().forEach(l -> l.forEach(registry::remove));
        bySlot.clear();
        registry.remove(failuresMeter);
    }
}
