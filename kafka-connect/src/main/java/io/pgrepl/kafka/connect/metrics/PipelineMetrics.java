package io.pgrepl.kafka.connect.metrics;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import org.apache.kafka.connect.source.SourceRecord;

/** The counters, the queue and the captured tables of either bean. */
abstract class PipelineMetrics implements EventMetricsMXBean {
    final EventCounters counters = new EventCounters();
    final Set<String> capturedTables = new ConcurrentSkipListSet<>();
    private volatile Queue queue = Queue.NONE;

    void queue(Queue q) {
        queue = q == null ? Queue.NONE : q;
    }

    void capturedTables(List<String> tables) {
        capturedTables.addAll(tables);
    }

    /** Counts the change events among {@code records}, handed to Kafka Connect at {@code now}. */
    void handedOver(List<SourceRecord> records, long now) {
        for (SourceRecord r : records) {
            EventCounters.Event e = EventCounters.event(r);
            if (e == null) continue;
            counters.count(e, now);
            event(e, now);
        }
    }

    /** What the bean keeps of an event beyond the common counters. */
    abstract void event(EventCounters.Event e, long now);

    @Override public String getLastEvent() { return counters.lastEvent(); }
    @Override public long getMilliSecondsSinceLastEvent() { return counters.millisSinceLast(System.currentTimeMillis()); }
    @Override public long getTotalNumberOfEventsSeen() { return counters.total.get(); }
    @Override public long getTotalNumberOfCreateEventsSeen() { return counters.creates.get(); }
    @Override public long getTotalNumberOfUpdateEventsSeen() { return counters.updates.get(); }
    @Override public long getTotalNumberOfDeleteEventsSeen() { return counters.deletes.get(); }
    @Override public long getNumberOfEventsFiltered() { return 0; }
    @Override public long getNumberOfErroneousEvents() { return 0; }

    @Override public int getQueueTotalCapacity() { return queue.capacity(); }

    @Override
    public int getQueueRemainingCapacity() {
        Queue q = queue;
        return Math.max(0, q.capacity() - q.waiting());
    }

    @Override public long getMaxQueueSizeInBytes() { return 0; }
    @Override public long getCurrentQueueSizeInBytes() { return 0; }
    @Override public String[] getCapturedTables() { return capturedTables.toArray(String[]::new); }

    @Override
    public void reset() {
        counters.reset();
    }
}
