package io.pgrepl.flink;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A source that emits nothing and never ends, whose enumerator takes {@code millis} to checkpoint.
 * Flink checkpoints every operator coordinator of a job before it sends the checkpoint's barriers
 * to the sources, so in a job that holds this source, the other sources' enumerators checkpoint
 * that much earlier than their readers: what a reader reports in between is in its checkpoint but
 * not in its enumerator's. On a loaded machine that gap is tens of milliseconds; this makes it
 * wide enough for a test to land in it every time.
 */
final class SlowCheckpointSource implements Source<Long, SlowCheckpointSource.NoSplit, Integer> {
    private final long millis;

    SlowCheckpointSource(long millis) {
        this.millis = millis;
    }

    /** Never created: the enumerator assigns nothing. */
    static final class NoSplit implements SourceSplit {
        @Override
        public String splitId() {
            return "none";
        }
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<NoSplit, Integer> createEnumerator(SplitEnumeratorContext<NoSplit> context) {
        return new Enumerator(millis);
    }

    @Override
    public SplitEnumerator<NoSplit, Integer> restoreEnumerator(SplitEnumeratorContext<NoSplit> context, Integer state) {
        return new Enumerator(millis);
    }

    @Override
    public SimpleVersionedSerializer<NoSplit> getSplitSerializer() {
        return new Serializer<>(new NoSplit());
    }

    @Override
    public SimpleVersionedSerializer<Integer> getEnumeratorCheckpointSerializer() {
        return new Serializer<>(0);
    }

    @Override
    public SourceReader<Long, NoSplit> createReader(SourceReaderContext context) {
        return new SourceReader<>() {
            private final CompletableFuture<Void> never = new CompletableFuture<>();

            @Override
            public void start() {}

            @Override
            public InputStatus pollNext(ReaderOutput<Long> output) {
                return InputStatus.NOTHING_AVAILABLE;
            }

            @Override
            public List<NoSplit> snapshotState(long checkpointId) {
                return List.of();
            }

            @Override
            public CompletableFuture<Void> isAvailable() {
                return never;
            }

            @Override
            public void addSplits(List<NoSplit> splits) {}

            @Override
            public void notifyNoMoreSplits() {}

            @Override
            public void close() {}
        };
    }

    private static final class Enumerator implements SplitEnumerator<NoSplit, Integer> {
        private final long millis;

        Enumerator(long millis) {
            this.millis = millis;
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {}

        @Override
        public void addSplitsBack(List<NoSplit> splits, int subtaskId) {}

        @Override
        public void addReader(int subtaskId) {}

        @Override
        public Integer snapshotState(long checkpointId) throws Exception {
            Thread.sleep(millis);
            return 0;
        }

        @Override
        public void close() {}
    }

    private static final class Serializer<T> implements SimpleVersionedSerializer<T> {
        private final T value;

        Serializer(T value) {
            this.value = value;
        }

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(T obj) {
            return new byte[0];
        }

        @Override
        public T deserialize(int version, byte[] serialized) {
            return value;
        }
    }
}
