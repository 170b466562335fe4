package io.pgrepl.flink;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Hands every element to a callback registered under a name in this JVM (the MiniCluster runs in
 * the test's JVM), as it arrives: unlike the collector, nothing waits for a checkpoint to complete
 * before the test sees it. At parallelism 1 the callback sees the elements in the order they reach
 * the sink. Not for jobs that restart: a replay would reach the callback again.
 */
final class CallbackSink<T> implements Sink<T> {
    private static final Map<String, Consumer<Object>> CALLBACKS = new ConcurrentHashMap<>();
    private final String name;

    CallbackSink(String name) {
        this.name = name;
    }

    /** Registers (or replaces) the callback of {@code name}. */
    @SuppressWarnings("unchecked")
    static <T> void register(String name, Consumer<T> callback) {
        CALLBACKS.put(name, (Consumer<Object>) callback);
    }

    static void unregister(String name) {
        CALLBACKS.remove(name);
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        Consumer<Object> callback = CALLBACKS.get(name);
        if (callback == null) throw new IllegalStateException("no callback registered as " + name);
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context ctx) {
                callback.accept(element);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
