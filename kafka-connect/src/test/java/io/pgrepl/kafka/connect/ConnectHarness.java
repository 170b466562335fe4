package io.pgrepl.kafka.connect;

import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/** A real in-process KRaft broker and Connect worker, and a reader of what the connector wrote. */
final class ConnectHarness {
    private ConnectHarness() {}

    /** The newest and the oldest major of {@code -Dpg.versions} (18 and 10 by default). */
    static java.util.stream.Stream<Integer> newestAndOldest() {
        List<Integer> m = io.pgrepl.testkit.PgVersions.matrix().stream().sorted().toList();
        int newest = m.get(m.size() - 1);
        return newest == m.get(0) ? java.util.stream.Stream.of(newest) : java.util.stream.Stream.of(newest, m.get(0));
    }

    static EmbeddedConnectCluster start(String name, int workers, Map<String, String> extraWorkerProps) {
        Map<String, String> w = new HashMap<>();
        w.put("plugin.discovery", "service_load");
        w.put("offset.flush.interval.ms", "500");
        w.put("key.converter", JsonConverter.class.getName());
        w.put("value.converter", JsonConverter.class.getName());
        w.put("key.converter.schemas.enable", "true");
        w.put("value.converter.schemas.enable", "true");
        w.putAll(extraWorkerProps);
        // One broker: the transaction state log must fit on it (exactly-once workers use transactions).
        java.util.Properties broker = new java.util.Properties();
        broker.put("transaction.state.log.replication.factor", "1");
        broker.put("transaction.state.log.min.isr", "1");
        EmbeddedConnectCluster c = new EmbeddedConnectCluster.Builder().name(name).numWorkers(workers).numBrokers(1)
                .workerProps(w).brokerProps(broker).build();
        c.start();
        return c;
    }

    /**
     * Until the connector and exactly {@code tasks} tasks of it run. Connect's own assertion
     * (ConnectAssertions) gives up after a minute, which a loaded machine can take to start a task.
     */
    static void awaitRunning(EmbeddedConnectCluster c, String name, int tasks, String detail) throws InterruptedException {
        awaitState(c, name, "RUNNING", tasks, detail);
    }

    /** Until the connector is STOPPED, with no tasks: Connect's assertConnectorIsStopped, with {@link Waits#CEILING}. */
    static void awaitStopped(EmbeddedConnectCluster c, String name, String detail) throws InterruptedException {
        awaitState(c, name, "STOPPED", 0, detail);
    }

    private static void awaitState(EmbeddedConnectCluster c, String name, String state, int tasks, String detail)
            throws InterruptedException {
        AtomicReference<String> last = new AtomicReference<>("no status yet");
        try {
            Waits.until(() -> detail + " (" + name + ": " + last.get() + ")", Waits.CEILING, () -> {
                var s = connectorStatus(c, name);
                if (s == null) return false;
                last.set(s.connector().state() + ", tasks " + s.tasks().stream().map(t -> t.id() + " " + t.state()).toList());
                return state.equals(s.connector().state()) && s.tasks().size() == tasks
                        && s.tasks().stream().allMatch(t -> state.equals(t.state()));
            });
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // the condition throws none
        }
    }

    /** The connector's status, or null while the worker does not know it (yet). */
    static ConnectorStateInfo connectorStatus(EmbeddedConnectCluster c, String name) {
        try {
            return c.connectorStatus(name);
        } catch (RuntimeException notYet) {
            return null;
        }
    }

    /** The longest a read may take while records keep arriving (a topic that never goes quiet). */
    static final Duration READ_CAP = Waits.CEILING.multipliedBy(3);

    /** One consumed record, key and value turned back into Connect data by the worker's own converter. */
    record Change(String topic, int partition, long offset, Struct key, Struct value, byte[] rawValue, byte[] rawKey) {
        String op() {
            // Null for records without an envelope (notifications, heartbeats).
            return value == null || value.schema().field("op") == null ? null : value.getString("op");
        }
    }

    static JsonConverter converter(boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "true"), isKey);
        return c;
    }

    /**
     * Reads every topic matching {@code topicPattern} from the start until {@code done} holds for what was read.
     * The read ends as soon as {@code done} holds; it gives up once nothing new arrived for {@code timeout}
     * (raised to {@link Waits#CEILING}), or after {@link #READ_CAP} in all. A loaded machine copies and reads
     * a large table many times slower than a quiet one, so a fixed budget would fail a read that still moves.
     */
    static List<Change> readUntil(EmbeddedConnectCluster c, String topicPattern, Map<String, Object> consumerProps,
                                  Predicate<List<Change>> done, Duration timeout) {
        return readUntil(c, topicPattern, consumerProps, done, timeout, 5);
    }

    /**
     * As above, returning once {@code done} holds and then {@code quietPolls} polls in a row brought
     * nothing; 0 returns as soon as it holds, for topics that never go quiet (heartbeats).
     */
    static List<Change> readUntil(EmbeddedConnectCluster c, String topicPattern, Map<String, Object> consumerProps,
                                  Predicate<List<Change>> done, Duration timeout, int quietPolls) {
        JsonConverter keys = converter(true);
        JsonConverter values = converter(false);
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
        props.putAll(consumerProps);
        List<Change> out = new ArrayList<>();
        // A rebalance (a new topic matching the pattern) may rewind to uncommitted positions: each
        // record (topic, partition, offset) counts once.
        java.util.Set<String> seen = new java.util.HashSet<>();
        Duration stall = Waits.atLeastCeiling(timeout);
        long start = System.nanoTime();
        long lastNew = start;
        try (KafkaConsumer<byte[], byte[]> consumer = c.kafka().createConsumer(props)) {
            consumer.subscribe(java.util.regex.Pattern.compile(topicPattern));
            int quietAfterDone = 0;
            boolean first = true;
            while (System.nanoTime() - lastNew < stall.toNanos() && System.nanoTime() - start < READ_CAP.toNanos()) {
                var batch = consumer.poll(Duration.ofMillis(200));
                int before = out.size();
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (!seen.add(r.topic() + "/" + r.partition() + "/" + r.offset())) continue;
                    SchemaAndValue k = r.key() == null ? SchemaAndValue.NULL : keys.toConnectData(r.topic(), r.key());
                    SchemaAndValue v = r.value() == null ? SchemaAndValue.NULL : values.toConnectData(r.topic(), r.value());
                    // Keys of the messages topic are strings (the prefix): only struct keys are kept.
                    out.add(new Change(r.topic(), r.partition(), r.offset(), k.value() instanceof Struct s ? s : null,
                            (Struct) v.value(), r.value(), r.key()));
                }
                boolean grew = out.size() > before;
                if (grew) lastNew = System.nanoTime();
                // Topics are fetched in no particular order: once done, read on until a few polls bring nothing.
                // (done is asked again only when something arrived: it may walk all of a large read.)
                if (quietPolls == 0 && (grew || first) && done.test(out)) return out;
                if (batch.isEmpty() && done.test(out) && ++quietAfterDone >= quietPolls) return out;
                if (!batch.isEmpty()) quietAfterDone = 0;
                first = false;
            }
        }
        throw new AssertionError("timed out reading " + topicPattern + " after " + Duration.ofNanos(System.nanoTime() - start)
                .toSeconds() + " s, nothing new for " + Duration.ofNanos(System.nanoTime() - lastNew).toSeconds() + " s; read "
                + out.size() + " records");
    }
}
