package io.pgrepl.debezium.compat;

import io.pgrepl.kafka.connect.PgreplSourceTask;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.SourceTaskContext;

/** pgrepl's task, unchanged, with its failures written down for {@link FailFast}. */
public final class CompatTask extends SourceTask {
    private final PgreplSourceTask delegate = new PgreplSourceTask();

    @Override
    public void initialize(SourceTaskContext context) {
        super.initialize(context);
        delegate.initialize(context);
    }

    @Override
    public String version() {
        return delegate.version();
    }

    @Override
    public void start(Map<String, String> props) {
        try {
            delegate.start(props);
        } catch (RuntimeException e) {
            ConnectorFailures.record("task start", e);
            throw e;
        }
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        try {
            return delegate.poll();
        } catch (RuntimeException e) {
            ConnectorFailures.record("task poll", e);
            throw e;
        }
    }

    @Override
    public void commit() throws InterruptedException {
        delegate.commit();
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) throws InterruptedException {
        delegate.commitRecord(record, metadata);
    }

    @Override
    public void stop() {
        delegate.stop();
    }
}
