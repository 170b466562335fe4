package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Debezium's signals, verbatim, from the signal table and from the kafka signal topic, through a
 * real Connect worker (PostgreSQL 18; the watermark variants are IncrementalSnapshotTest's):
 * malformed signals from both channels are refused and the stream goes on; pause holds a snapshot
 * before its first chunk, resume starts it, pause and stop end it part way; both forms of
 * additional conditions are honoured.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IncrementalSignalsTest {
    private static final String P = "sig";
    private static final String NOTES = P + ".notifications";
    private static final String T = P + ".public." + P + "_big";
    private static final String END = P + ".public." + P + "_end";
    private EmbeddedConnectCluster connect;
    private PgServer pg;
    private int marks;

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("sig", 1, Map.of());
        pg = PgServer.start(PgServer.builder().version(18).build());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        if (pg != null) pg.close();
    }

    private void signalRow(String id, String type, String data) throws Exception {
        EndToEndTest.sql(pg, "INSERT INTO " + P + "_signal VALUES ('" + id + "', '" + type + "', "
                + (data == null ? "NULL" : "'" + data + "'") + ")");
    }

    private void kafkaSignal(String value) {
        connect.kafka().produce(P + ".signals", P, value);
    }

    /** Everything so far: a marker row is written and read back after a few quiet polls. */
    private List<Change> settle(Predicate<List<Change>> also) throws Exception {
        int m = ++marks;
        EndToEndTest.sql(pg, "INSERT INTO " + P + "_end VALUES (" + m + ", 'mark', " + m + ")");
        return ConnectHarness.readUntil(connect, "\\Q" + P + ".\\E(public\\..*|notifications)", Map.of(), l -> also.test(l)
                && l.stream().anyMatch(c -> c.topic().equals(END) && IncrementalChecks.payload(c).get("after").get("id").asInt() == m),
                Duration.ofSeconds(60));
    }

    private static List<String> notes(List<Change> all) {
        return IncrementalChecks.notifications(all, NOTES, "public." + P + "_big");
    }

    private static List<Integer> readIds(List<Change> all) {
        return all.stream().filter(c -> c.topic().equals(T)).map(IncrementalChecks::payload)
                .filter(p -> p.get("op").asText().equals("r")).map(p -> p.get("after").get("id").asInt()).toList();
    }

    @Test
    void debeziumSignalsFromTheTableAndTheTopic() throws Exception {
        IncrementalSnapshotTest.createTables(pg, P, 3_000, 10);
        connect.kafka().createTopic(P + ".signals", 1);
        // Chunks of one row: the snapshot must still run when the table's pause row comes through the
        // stream, after a reader saw the first reads (at chunk 5 a faster engine finished first on CI).
        Map<String, String> c = IncrementalSnapshotTest.config(pg, P, 1);
        c.put("signal.enabled.channels", "source,kafka");
        c.put("signal.kafka.topic", P + ".signals");
        c.put("signal.kafka.bootstrap.servers", connect.kafka().bootstrapServers());
        c.put("signal.kafka.groupId", P + "-signals");
        connect.configureConnector(P, c);
        ConnectHarness.awaitRunning(connect, P, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, P + "_slot");

        // Malformed signals, one per channel: refused (logged at ERROR), and the stream goes on.
        signalRow("bad-1", "execute-snapshot", "{\"data-collections\": \"public." + P + "_big\"}");
        kafkaSignal("{\"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [\"public." + P + "_big\"]");
        kafkaSignal("{\"type\": \"snapshot-everything\"}");
        List<Change> all = settle(l -> true);
        assertEquals(List.of(), readIds(all), "a malformed signal started nothing");
        assertTrue(all.stream().noneMatch(x -> x.topic().equals(NOTES)), "no notification yet");

        // Paused first: an execute from the topic (Debezium's JSON, additional-conditions) waits. Both on the
        // topic: the two channels are not ordered with each other (a table row comes through the stream, a
        // topic record through a consumer), so a pause row could be acted on after the execute.
        kafkaSignal("{\"type\": \"pause-snapshot\", \"data\": {\"type\": \"INCREMENTAL\"}}");
        kafkaSignal("{\"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [\"public." + P + "_big\"], \"type\": \"INCREMENTAL\","
                + " \"additional-conditions\": [{\"data-collection\": \"public." + P + "_big\", \"filter\": \"id <= 2000\"}]}}");
        all = settle(l -> notes(l).contains("STARTED"));
        assertEquals(List.of(), readIds(all), "nothing is read while paused");

        // Resumed from the topic: chunks flow; paused again from the table, then stopped part way.
        kafkaSignal("{\"type\": \"resume-snapshot\", \"data\": {\"type\": \"INCREMENTAL\"}}");
        ConnectHarness.readUntil(connect, "\\Q" + T + "\\E", Map.of(), l -> !readIds(l).isEmpty(), Duration.ofSeconds(60), 0);
        signalRow("pause-2", "pause-snapshot", null);
        ConnectHarness.readUntil(connect, "\\Q" + NOTES + "\\E", Map.of(),
                l -> notes(l).stream().filter("PAUSED"::equals).count() >= 2 && notes(l).contains("RESUMED"), Duration.ofSeconds(60), 0);
        signalRow("stop-1", "stop-snapshot", "{\"data-collections\": [\"public." + P + "_big\"], \"type\": \"incremental\"}");
        all = settle(l -> notes(l).contains("ABORTED"));
        List<Integer> first = readIds(all);
        assertTrue(!first.isEmpty() && first.size() < 2_000, "stopped part way: " + first.size() + " reads");
        assertTrue(first.stream().allMatch(id -> id <= 2000), "additional-conditions honoured");
        assertEquals(first.size(), Set.copyOf(first).size(), "no row read twice");
        List<Change> again = settle(l -> true);
        assertEquals(first.size(), readIds(again).size(), "nothing read after the stop");
        assertTrue(!IncrementalChecks.notifications(again, NOTES, null).contains("COMPLETED"), "a stopped snapshot did not complete");

        // Executed again from the table, Debezium's older additional-condition form.
        signalRow("again-1", "execute-snapshot", "{\"data-collections\": [\"public." + P + "_big\"], \"type\": \"incremental\","
                + " \"additional-condition\": \"id > 2990\"}");
        signalRow("resume-2", "resume-snapshot", null); // still paused since pause-2
        all = settle(l -> IncrementalChecks.notifications(l, NOTES, null).contains("COMPLETED"));
        List<Integer> ids = readIds(all);
        List<Integer> second = ids.subList(first.size(), ids.size());
        assertEquals(IntStream.rangeClosed(2991, 3000).boxed().collect(Collectors.toSet()), Set.copyOf(second));
        assertEquals(10, second.size());
        List<String> kinds = notes(all);
        for (String k : List.of("STARTED", "RESUMED", "PAUSED", "ABORTED", "TABLE_SCAN_COMPLETED")) assertTrue(kinds.contains(k), k + " in " + kinds);
        // Only part of the table was read (no changes ran): every row in the topic is as the server has it.
        Map<Integer, String> source = IncrementalChecks.source(pg, P + "_big");
        IncrementalChecks.rebuilt(all, T).forEach((id, row) -> assertEquals(source.get(id), row, "row " + id));
        connect.deleteConnector(P);
    }

    /**
     * The kafka channel's position lives in the source offsets: a signal sent while the task is
     * stopped is acted on once it is back, and not again after a second restart under a consumer group
     * that has no offsets (as when the broker expired an idle group's offsets).
     */
    @Test
    void aKafkaSignalSentWhileStoppedIsActedOnOnce() throws Exception {
        String p = "sgo";
        String notes = p + ".notifications";
        String big = p + ".public." + p + "_big";
        IncrementalSnapshotTest.createTables(pg, p, 300, 10);
        connect.kafka().createTopic(p + ".signals", 1);
        Map<String, String> c = IncrementalSnapshotTest.config(pg, p, 50);
        c.put("signal.enabled.channels", "source,kafka");
        c.put("signal.kafka.topic", p + ".signals");
        c.put("signal.kafka.bootstrap.servers", connect.kafka().bootstrapServers());
        c.put("signal.kafka.groupId", p + "-signals-1");
        connect.configureConnector(p, c);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");

        connect.stopConnector(p);
        ConnectHarness.awaitStopped(connect, p, "connector did not stop");
        connect.kafka().produce(p + ".signals", p, "{\"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [\"public."
                + p + "_big\"], \"type\": \"INCREMENTAL\"}}");
        connect.resumeConnector(p);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not resume");
        ConnectHarness.readUntil(connect, "\\Q" + notes + "\\E", Map.of(),
                l -> IncrementalChecks.notifications(l, notes, null).contains("COMPLETED"), Duration.ofSeconds(60), 0);

        // Restarted again under a group with no committed offsets: only the source offsets say where to go on.
        connect.stopConnector(p);
        ConnectHarness.awaitStopped(connect, p, "connector did not stop");
        c.put("signal.kafka.groupId", p + "-signals-2");
        connect.configureConnector(p, c);
        connect.resumeConnector(p);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not resume");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        // A later signal on the same topic still gets through (the channel reads on from where it was).
        connect.kafka().produce(p + ".signals", p, "{\"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [\"public."
                + p + "_small\"], \"type\": \"INCREMENTAL\"}}");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".\\E(public\\..*|notifications)", Map.of(),
                // Topics are fetched apart: wait for the reads as well as the notification.
                l -> IncrementalChecks.notifications(l, notes, "public." + p + "_small").contains("TABLE_SCAN_COMPLETED")
                        && IncrementalChecks.reads(l, p + ".public." + p + "_small").size() >= 10,
                Duration.ofSeconds(60));
        Map<Integer, Integer> reads = IncrementalChecks.reads(all, big);
        assertEquals(300, reads.size(), "the signal sent while stopped was acted on");
        assertEquals(Set.of(1), Set.copyOf(reads.values()), "and only once: no row read twice");
        assertEquals(1, IncrementalChecks.notifications(all, notes, "public." + p + "_big").stream()
                .filter("TABLE_SCAN_COMPLETED"::equals).count(), "one scan of the table");
        assertEquals(10, IncrementalChecks.reads(all, p + ".public." + p + "_small").size(), "the later signal was acted on");
        connect.deleteConnector(p);
    }
}
