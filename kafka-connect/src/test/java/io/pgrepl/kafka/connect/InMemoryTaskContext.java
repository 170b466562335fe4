package io.pgrepl.kafka.connect;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * What a Connect worker gives a task, held in memory: the task's configuration and the offsets
 * "committed" so far (set by the test, as a worker would have stored them). Not a fake of
 * anything that misbehaves: it only lets a test drive a real task against a real server without
 * a worker, to time stop() or to start from offsets a crash would have left.
 */
final class InMemoryTaskContext implements SourceTaskContext {
    private final Map<String, String> configs;
    private final Map<Map<String, ?>, Map<String, Object>> offsets = new HashMap<>();

    InMemoryTaskContext(Map<String, String> configs) {
        this.configs = configs;
    }

    void offset(Map<String, ?> partition, Map<String, Object> offset) {
        offsets.put(partition, offset);
    }

    @Override
    public Map<String, String> configs() {
        return configs;
    }

    @Override
    public org.apache.kafka.common.metrics.PluginMetrics pluginMetrics() {
        return null; // the task registers no metrics of its own
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
        return new OffsetStorageReader() {
            @Override
            @SuppressWarnings("unchecked")
            public <T> Map<String, Object> offset(Map<String, T> partition) {
                return offsets.get(partition);
            }

            @Override
            public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
                Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
                for (Map<String, T> p : partitions) out.put(p, offset(p));
                return out;
            }
        };
    }
}
