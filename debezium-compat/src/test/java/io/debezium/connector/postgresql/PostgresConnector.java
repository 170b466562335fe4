package io.debezium.connector.postgresql;

import io.pgrepl.debezium.compat.CompatTask;
import io.pgrepl.debezium.compat.ConnectorFailures;
import io.pgrepl.debezium.compat.WorkerView;
import io.pgrepl.kafka.connect.PgreplSourceConnector;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectorContext;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * pgrepl's connector under the name Debezium's tests start: {@code debezium-compat}'s test classes
 * come before Debezium's jar on the test class path, so {@code PostgresConnector.class} in Debezium's
 * integration tests is this class ({@code RunRecord} writes down which one loaded). Everything is
 * {@link PgreplSourceConnector}'s (its task runs in {@link CompatTask}, which only notes failures); {@link WorkerView} only removes what a Connect worker would never
 * hand a connector (the embedded engine's own settings) and stands in for {@code slot.drop.on.stop}
 * while pgrepl refuses it.
 */
public final class PostgresConnector extends SourceConnector {
    private final PgreplSourceConnector delegate = new PgreplSourceConnector();
    private WorkerView view;

    @Override
    public void initialize(ConnectorContext ctx) {
        super.initialize(ctx);
        delegate.initialize(ctx);
    }

    @Override
    public String version() {
        return delegate.version();
    }

    @Override
    public void start(Map<String, String> props) {
        view = WorkerView.of(props, delegate.config());
        try {
            delegate.start(view.connectorConfig());
        } catch (RuntimeException e) {
            ConnectorFailures.record("connector start", e);
            throw e;
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return CompatTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return delegate.taskConfigs(maxTasks);
    }

    /** The engine stops the task before the connector: the slot is idle by now, or soon. */
    @Override
    public void stop() {
        try {
            delegate.stop();
        } finally {
            if (view != null) view.afterStop();
        }
    }

    @Override
    public ConfigDef config() {
        return delegate.config();
    }

    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = delegate.validate(WorkerView.of(connectorConfigs, delegate.config()).connectorConfig());
        List<String> errors = result.configValues().stream().flatMap(v -> v.errorMessages().stream()).toList();
        if (!errors.isEmpty()) ConnectorFailures.record("configuration refused: " + String.join("; ", errors));
        return result;
    }

    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return delegate.exactlyOnceSupport(connectorConfig);
    }

    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
        return delegate.canDefineTransactionBoundaries(connectorConfig);
    }
}
