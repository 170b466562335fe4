package io.pgrepl.benchmarks.connect.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;

/**
 * Finds and aborts hanging Kafka transactions, as an operator does with {@code kafka-transactions.sh
 * find-hanging} and {@code abort}: a partition holds an open transaction (its last stable offset stays at
 * the transaction's first offset, so every read_committed reader, Connect's offset reader included,
 * waits) that the transaction coordinator will never finish, because it no longer tracks that partition
 * as part of the producer's transaction.
 *
 * <p>The rule, per partition and producer ({@code describeProducers}): the same open transaction (producer
 * id, epoch and first offset) was seen open by this watchdog for longer than {@code transaction.timeout.ms}
 * plus a margin (the coordinator aborts a transaction that outlives its timeout, so a live one is never
 * open that long), and the coordinator ({@code listTransactions} by producer id, then {@code
 * describeTransactions}) either knows no transactional id for the producer, or its transaction does not
 * include the partition. The age is the watchdog's own observation, not the producer state's {@code
 * lastTimestamp} ({@code kafka-transactions.sh find-hanging}'s measure): that is the records' CreateTime,
 * which a source connector sets to the source's commit time, minutes old when the connector lags, and so
 * marks a live transaction as old. A transaction the coordinator still tracks for this producer and epoch
 * in an open state is never aborted, whatever its partitions, and the partition is described once more
 * right before the abort (the transaction must still be open from the same offset). Any error in a pass
 * (the broker away, a coordinator loading its state) ends the pass and restarts every observation.
 */
final class HangingTransactionWatchdog {
    /** One open transaction on one partition, as the partition leader describes it. */
    record Hanging(TopicPartition partition, long producerId, int producerEpoch, int coordinatorEpoch, long startOffset,
            long lastTimestamp, long ageMs, String coordinatorView) {
        String key() {
            return partition + "/" + producerId + "/" + producerEpoch + "/" + startOffset;
        }
    }

    /** A hanging transaction found (and, if {@code aborted}, ended) at {@code at}. */
    record Event(java.time.Instant at, Hanging hanging, boolean aborted, String detail) {}

    private final Admin admin;
    private final long thresholdMs;
    private final Consumer<String> log;
    private final Set<String> seen = new HashSet<>();
    /** Transactions whose abort the broker refused for good (not a retriable error): never tried again. */
    private final Set<String> refused = new HashSet<>();
    /** Each open transaction seen in the last pass (its {@link Hanging#key()}) and when it was first seen, in ms. */
    private Map<String, Long> openSince = new HashMap<>();
    private final java.util.function.LongSupplier clock;
    final List<Event> events = new CopyOnWriteArrayList<>();
    private volatile int passes;
    private volatile int failedPasses;

    /**
     * @param transactionTimeout the producers' {@code transaction.timeout.ms}
     * @param margin added to it: the coordinator's timed-out-transaction sweep runs every 10 s by default
     *     ({@code transaction.abort.timed.out.transaction.cleanup.interval.ms}), and clocks differ
     */
    HangingTransactionWatchdog(Admin admin, Duration transactionTimeout, Duration margin, Consumer<String> log) {
        this(admin, transactionTimeout, margin, log, System::currentTimeMillis);
    }

    HangingTransactionWatchdog(Admin admin, Duration transactionTimeout, Duration margin, Consumer<String> log,
            java.util.function.LongSupplier clockMs) {
        this.admin = admin;
        this.clock = clockMs;
        this.thresholdMs = transactionTimeout.toMillis() + margin.toMillis();
        this.log = log;
    }

    int found() {
        return (int) events.stream().map(e -> e.hanging().key()).distinct().count();
    }

    int aborted() {
        return (int) events.stream().filter(Event::aborted).count();
    }

    int passes() {
        return passes;
    }

    int failedPasses() {
        return failedPasses;
    }

    /** One pass: finds the hanging transactions on every partition and aborts each; returns those found. */
    List<Hanging> sweep() {
        List<Hanging> hanging;
        try {
            hanging = find();
            passes++;
        } catch (Exception notNow) {
            failedPasses++;
            openSince = new HashMap<>();
            return List.of();
        }
        for (Hanging h : hanging) {
            if (refused.contains(h.key())) continue;
            java.time.Instant at = java.time.Instant.now();
            String offsets = offsets(h.partition());
            try {
                if (!stillOpen(h)) {
                    log.accept("transaction of producer " + h.producerId() + " on " + h.partition() + " from offset "
                            + h.startOffset() + " ended while it was looked at: not aborted");
                    continue;
                }
                admin.abortTransaction(new AbortTransactionSpec(h.partition(), h.producerId(), (short) h.producerEpoch(),
                        h.coordinatorEpoch())).all().get(30, TimeUnit.SECONDS);
                boolean first = seen.add(h.key());
                events.add(new Event(at, h, true, offsets));
                log.accept(String.format("HANGING TRANSACTION %s: producer id %d, epoch %d, coordinator epoch %d, open"
                                + " from offset %,d for at least %,d s (%s; %s) -> ABORTED%s", h.partition(),
                        h.producerId(), h.producerEpoch(), h.coordinatorEpoch(), h.startOffset(), h.ageMs() / 1000,
                        h.coordinatorView(), offsets, first ? "" : " (again)"));
            } catch (Exception e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                if (!(cause instanceof org.apache.kafka.common.errors.RetriableException
                        || cause instanceof java.util.concurrent.TimeoutException)) {
                    refused.add(h.key()); // e.g. an epoch the partition has moved past: retrying cannot help
                }
                events.add(new Event(at, h, false, offsets + "; abort failed: " + cause));
                log.accept(String.format("HANGING TRANSACTION %s: producer id %d, epoch %d, open from offset %,d for at"
                                + " least %,d s (%s; %s); abort FAILED: %s", h.partition(), h.producerId(),
                        h.producerEpoch(), h.startOffset(), h.ageMs() / 1000, h.coordinatorView(), offsets, cause));
            }
        }
        return hanging;
    }

    /** The hanging transactions on every partition of every topic (internal ones included), aborting none. */
    List<Hanging> find() throws Exception {
        List<TopicPartition> partitions = new ArrayList<>();
        Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS);
        admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).forEach((topic, d) ->
                d.partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition()))));
        long now = clock.getAsLong();
        Map<Long, List<Hanging>> candidates = new HashMap<>();
        Map<String, Long> seenOpen = new HashMap<>();
        admin.describeProducers(partitions).all().get(30, TimeUnit.SECONDS).forEach((tp, state) -> {
            for (ProducerState p : state.activeProducers()) {
                if (p.currentTransactionStartOffset().isEmpty()) continue;
                Hanging h = new Hanging(tp, p.producerId(), p.producerEpoch(), p.coordinatorEpoch().orElse(-1),
                        p.currentTransactionStartOffset().getAsLong(), p.lastTimestamp(), 0, "?");
                long since = openSince.getOrDefault(h.key(), now);
                seenOpen.put(h.key(), since);
                if (now - since <= thresholdMs) continue;
                candidates.computeIfAbsent(p.producerId(), id -> new ArrayList<>()).add(new Hanging(tp, p.producerId(),
                        p.producerEpoch(), h.coordinatorEpoch(), h.startOffset(), p.lastTimestamp(), now - since, "?"));
            }
        });
        openSince = seenOpen;
        if (candidates.isEmpty()) return List.of();
        Map<Long, String> transactionalIds = new HashMap<>();
        for (TransactionListing l : admin.listTransactions(new ListTransactionsOptions().filterProducerIds(candidates.keySet()))
                .all().get(30, TimeUnit.SECONDS)) {
            if (candidates.containsKey(l.producerId())) transactionalIds.put(l.producerId(), l.transactionalId());
        }
        Map<String, TransactionDescription> descriptions = describe(transactionalIds.values());
        List<Hanging> hanging = new ArrayList<>();
        candidates.forEach((producerId, open) -> {
            String id = transactionalIds.get(producerId);
            TransactionDescription d = id == null ? null : descriptions.get(id);
            for (Hanging h : open) {
                String view;
                if (id == null) {
                    view = "the coordinator knows no transactional id for producer " + producerId;
                } else if (d == null) {
                    view = "transactional id " + id + " unknown to its coordinator";
                } else if (d.topicPartitions().contains(h.partition())) {
                    continue; // the coordinator still means to write this partition's marker
                } else if (isOpen(d.state()) && d.producerId() == producerId && d.producerEpoch() == h.producerEpoch()) {
                    continue; // the coordinator still tracks this very transaction: never ours to end
                } else {
                    view = "coordinator: " + id + " " + d.state() + ", producer id " + d.producerId() + " epoch "
                            + d.producerEpoch() + ", its transaction without this partition";
                }
                hanging.add(new Hanging(h.partition(), h.producerId(), h.producerEpoch(), h.coordinatorEpoch(),
                        h.startOffset(), h.lastTimestamp(), h.ageMs(), view));
            }
        });
        return hanging;
    }

    private Map<String, TransactionDescription> describe(Collection<String> ids) throws Exception {
        Map<String, TransactionDescription> out = new HashMap<>();
        if (ids.isEmpty()) return out;
        var result = admin.describeTransactions(new HashSet<>(ids));
        for (String id : new HashSet<>(ids)) {
            try {
                out.put(id, result.description(id).get(30, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                // Only "not found" is an answer; anything else (a coordinator loading) ends the pass.
                if (!(e.getCause() instanceof TransactionalIdNotFoundException)) throw e;
            }
        }
        return out;
    }

    /** Whether the partition still holds this very transaction open (described again, after the coordinator). */
    private boolean stillOpen(Hanging h) throws Exception {
        var state = admin.describeProducers(List.of(h.partition())).partitionResult(h.partition()).get(30, TimeUnit.SECONDS);
        for (ProducerState p : state.activeProducers()) {
            if (p.producerId() == h.producerId() && p.producerEpoch() == h.producerEpoch()
                    && p.currentTransactionStartOffset().orElse(-1) == h.startOffset()) {
                return true;
            }
        }
        return false;
    }

    private static boolean isOpen(TransactionState s) {
        return s == TransactionState.ONGOING || s == TransactionState.PREPARE_COMMIT || s == TransactionState.PREPARE_ABORT
                || s == TransactionState.UNKNOWN;
    }

    /** The partition's last stable and end offsets, for the log line (what an operator's alert compares). */
    private String offsets(TopicPartition tp) {
        try {
            long stable = admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .all().get(10, TimeUnit.SECONDS).get(tp).offset();
            long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(10, TimeUnit.SECONDS).get(tp).offset();
            return String.format("last stable offset %,d, end offset %,d", stable, end);
        } catch (Exception e) {
            return "offsets unknown";
        }
    }
}
