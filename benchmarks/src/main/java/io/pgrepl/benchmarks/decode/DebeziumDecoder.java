package io.pgrepl.benchmarks.decode;

import io.debezium.config.Configuration;
import io.debezium.connector.common.CdcSourceTaskContext;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresSchema;
import io.debezium.connector.postgresql.PostgresStreamingChangeEventSource.PgConnectionSupplier;
import io.debezium.connector.postgresql.PostgresValueConverter;
import io.debezium.connector.postgresql.TypeRegistry;
import io.debezium.connector.postgresql.connection.MessageDecoderContext;
import io.debezium.connector.postgresql.connection.PostgresConnection;
import io.debezium.connector.postgresql.connection.ReplicationMessage;
import io.debezium.connector.postgresql.connection.ReplicationStream.ReplicationMessageProcessor;
import io.debezium.connector.postgresql.connection.pgoutput.PgOutputMessageDecoder;
import io.debezium.relational.CustomConverterRegistry;
import io.debezium.schema.SchemaTopicNamingStrategy;
import io.debezium.spi.topic.TopicNamingStrategy;
import io.pgrepl.testkit.PgServer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.postgresql.core.BaseConnection;

/**
 * Debezium's pgoutput decoder ({@link PgOutputMessageDecoder}, debezium-connector-postgres) driven on
 * the benchmark's inputs as directly as its classes allow: the input captured again, the same way,
 * on a test-kit server of its own (same rows and byte count; only xids, LSNs and times differ), and a
 * real {@link PostgresConnection} to that server (its Relation handling queries the catalog over JDBC for columns,
 * optionality, defaults and primary keys), its {@link TypeRegistry}, and a {@link PostgresSchema}
 * built the way Debezium's own tests build one. The Relation messages go through it once in the
 * setup; the measured loop calls {@code processNotEmptyMessage} on one heap {@link ByteBuffer} per
 * message (rewound, not reallocated), which is what its replication stream hands it, and touches
 * every column of every message its processor receives. Nothing in the loop talks to the server.
 *
 * <p>Not for binary or streamed inputs: this decoder reads only 't', 'u' and 'n' tuple values
 * (a 'b' value is skipped without consuming its bytes), and it has no Stream Start/Stop/Commit
 * handling nor the xid that streamed changes carry; Debezium never asks for either.
 */
@State(Scope.Thread)
public class DebeziumDecoder {
    private PostgresConnection connection;
    private PgOutputMessageDecoder decoder;
    private TypeRegistry types;
    private ByteBuffer[] messages;
    private PgConnectionSupplier supplier;
    private boolean values;
    private long sum;
    private int processed;
    private final ReplicationMessageProcessor processor = this::touch;

    private PgServer server;

    @Setup(Level.Trial)
    public void setup(DecodePathsBenchmark b) throws Exception {
        String input = b.input;
        if (input.equals("binary") || input.equals("streamed")) {
            throw new UnsupportedOperationException("Debezium's pgoutput decoder cannot decode the " + input
                    + " input (no binary tuple values, no streamed transactions)");
        }
        server = DecodeInputs.start();
        DecodeInputs.Input captured = DecodeInputs.capture(server, input);
        if (captured.bytes() != b.captured.bytes()) {
            throw new IllegalStateException("the recapture differs in size: " + captured.bytes() + " vs " + b.captured.bytes());
        }
        Configuration config = Configuration.create()
                .with("database.hostname", server.host()).with("database.port", server.port())
                .with("database.user", server.superuser().name()).with("database.password", server.superuser().password())
                .with("database.dbname", "postgres").with("database.sslmode", "disable")
                .with("topic.prefix", "bench").with("plugin.name", "pgoutput").build();
        PostgresConnectorConfig cfg = new PostgresConnectorConfig(config);
        types = PostgresConnection.createTypeRegistry(cfg.getJdbcConfig());
        PostgresConnection.PostgresValueConverterBuilder converters =
                registry -> PostgresValueConverter.of(cfg, StandardCharsets.UTF_8, registry);
        connection = new PostgresConnection(cfg.getJdbcConfig(), types, converters, "benchmark");
        @SuppressWarnings({"unchecked", "rawtypes"})
        TopicNamingStrategy<io.debezium.relational.TableId> topics = (TopicNamingStrategy) SchemaTopicNamingStrategy.create(cfg);
        PostgresSchema schema = new PostgresSchema(new CdcSourceTaskContext<>(cfg.getConfig(), cfg, Map.of()),
                connection.getDefaultValueConverter(), topics, converters.build(types),
                new CustomConverterRegistry(Collections.emptyList())) {};
        decoder = new PgOutputMessageDecoder(new MessageDecoderContext(cfg, schema), connection);
        for (byte[] m : captured.metadata()) decoder.processNotEmptyMessage(ByteBuffer.wrap(m), processor, types);
        List<byte[]> measured = captured.measured();
        messages = new ByteBuffer[measured.size()];
        for (int i = 0; i < messages.length; i++) messages[i] = ByteBuffer.wrap(measured.get(i));
        BaseConnection base = connection.connection().unwrap(BaseConnection.class);
        supplier = () -> base;
        // The same check as pgrepl's census: every row reached the processor as a change with columns.
        processed = 0;
        decodeAll(true);
        int changes = processed;
        if (changes != DecodeInputs.ROWS) {
            throw new IllegalStateException("Debezium decoded " + changes + " changes with columns, expected " + DecodeInputs.ROWS);
        }
        System.out.printf("%n[setup] Debezium decoded %d changes of %s%n", changes, input);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        decoder.close(); // closes the connection too
        server.close();
    }

    long decodeAll(boolean values) throws Exception {
        this.values = values;
        sum = 0;
        for (ByteBuffer m : messages) {
            m.clear();
            decoder.processNotEmptyMessage(m, processor, types);
        }
        return sum;
    }

    private void touch(ReplicationMessage m) {
        sum += m.getOperation().ordinal();
        if (m.isTransactionalMessage()) { // Begin/Commit: no tuples (asking throws)
            sum += m.getTransactionId().orElse(0);
            return;
        }
        List<ReplicationMessage.Column> cols = m.getNewTupleList();
        if (cols == null || cols.isEmpty()) return;
        processed++;
        sum += touch(cols);
        List<ReplicationMessage.Column> old = m.getOldTupleList();
        if (old != null) sum += touch(old);
    }

    private long touch(List<ReplicationMessage.Column> cols) {
        long s = 0;
        for (ReplicationMessage.Column c : cols) {
            s += c.getName().length() + c.getType().getOid();
            if (values) {
                Object v = c.getValue(supplier, false);
                s += v == null ? 0 : v.hashCode();
            }
        }
        return s;
    }
}
