package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgrepl.client.snapshot.incremental.TableProgress.Status;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.kafka.connect.snapshot.SnapshotNotifications;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** Which Debezium notifications a series of table progress reports becomes (no server needed). */
class SnapshotNotificationsTest {
    private final SnapshotNotifications n = new SnapshotNotifications("notes", null, "srv", Map.of("server", "srv"), rel -> "unused");
    private final List<SourceRecord> out = new ArrayList<>();

    private void report(String table, Status s, long chunks, long rows, boolean nothingLeft) {
        n.accept(new TableProgress(table, s, chunks, rows, 100, null), nothingLeft, Map.of("x", 1), out::add);
    }

    private List<String> types() {
        return out.stream().map(r -> ((Struct) r.value()).getString("type")).toList();
    }

    @Test
    void twoTablesPausedResumedAndCompleted() {
        report("public.a", Status.PLANNING, 0, 0, false);
        report("public.a", Status.RUNNING, 1, 10, false);
        report("public.a", Status.PAUSED, 1, 10, false);
        report("public.a", Status.RUNNING, 1, 10, false);
        report("public.a", Status.COMPLETED, 2, 20, false); // public.b still queued
        report("public.b", Status.PLANNING, 0, 0, false);
        report("public.b", Status.COMPLETED, 1, 0, true);
        assertEquals(List.of("STARTED", "IN_PROGRESS", "PAUSED", "RESUMED", "TABLE_SCAN_COMPLETED", "STARTED", "TABLE_SCAN_COMPLETED",
                "COMPLETED"), types());
        Struct scan = (Struct) out.get(4).value();
        assertEquals("Incremental Snapshot", scan.getString("aggregate_type"));
        Map<?, ?> data = scan.getMap("additional_data");
        assertEquals("20", data.get("total_rows_scanned"));
        assertEquals("SUCCEEDED", data.get("status"));
        assertEquals("EMPTY", ((Struct) out.get(6).value()).getMap("additional_data").get("status"));
        assertEquals("notes", out.get(0).topic());
        assertEquals(((Struct) out.get(0).value()).getString("id"), ((Struct) out.get(0).key()).getString("id"));
    }

    /**
     * A table the connector does not capture: Debezium's UNKNOWN_SCHEMA answer with its keys only, even
     * when the progress were to carry figures (the engine's never does): nothing of the table leaves.
     */
    @Test
    void anExcludedTableIsAnsweredAsDebeziumAnswersAnUnknownOne() {
        n.accept(new TableProgress("hr.secrets", Status.EXCLUDED, 3, 245, 292, "hr.secrets is not captured: schema.exclude.list excludes it"),
                true, Map.of("x", 1), out::add);
        assertEquals(List.of("STARTED", "TABLE_SCAN_COMPLETED", "COMPLETED"), types());
        assertEquals(Map.of("connector_name", "srv", "data_collections", "hr.secrets", "scanned_collection", "hr.secrets",
                "total_rows_scanned", "0", "status", "UNKNOWN_SCHEMA"), data(1));
    }

    /** The setting that leaves a table out, as the engine's refusal names it. */
    @Test
    void theFilterNamesTheSettingThatExcludes() {
        TableFilter f = new TableFilter(List.of(), List.of("public\\.secret.*"), List.of(), List.of("HR"));
        assertEquals("schema.exclude.list", f.excludedBy("hr", "anything"));
        assertEquals("table.exclude.list", f.excludedBy("public", "Secret_pay"));
        assertEquals(null, f.excludedBy("public", "orders"));
        TableFilter in = new TableFilter(List.of("public\\.orders"), List.of(), List.of("public"), List.of()).hiding("public", "sig");
        assertEquals("table.include.list", in.excludedBy("public", "secrets"));
        assertEquals("schema.include.list", in.excludedBy("hr", "orders"));
        assertEquals("signal.data.collection", new TableFilter(List.of(), List.of()).hiding("public", "sig").excludedBy("public", "sig"));
    }

    @Test
    void debeziumFieldsPerKey() {
        report("public.a", Status.PLANNING, 0, 0, false);
        report("public.b", Status.PLANNING, 0, 0, false);
        n.accept(new TableProgress("public.a", Status.RUNNING, 1, 10, 100, null), null, "7,x", false, Map.of("x", 1), out::add);
        report("public.a", Status.COMPLETED, 2, 20, false);
        assertEquals(List.of("STARTED", "STARTED", "IN_PROGRESS", "TABLE_SCAN_COMPLETED"), types());
        assertEquals("public.a", data(0).get("data_collections"));
        assertEquals("public.a,public.b", data(1).get("data_collections"));
        Map<?, ?> progress = data(2);
        assertEquals("public.a,public.b", progress.get("data_collections"));
        assertEquals("public.a", progress.get("current_collection_in_progress"));
        assertEquals("7,x", progress.get("last_processed_key"));
        assertEquals("<null>", progress.get("maximum_key"), "no relation read yet: nothing to look the maximum up in");
        assertEquals("srv", progress.get("connector_name"));
        Map<?, ?> scan = data(3);
        assertEquals("public.a,public.b", scan.get("data_collections"));
        assertEquals("public.a", scan.get("scanned_collection"));
        assertEquals("20", scan.get("total_rows_scanned"));
        assertEquals("SUCCEEDED", scan.get("status"));
    }

    private Map<?, ?> data(int i) {
        return ((Struct) out.get(i).value()).getMap("additional_data");
    }

    @Test
    void planningTriedAgainIsStartedWithoutProgressBeforeTheFirstChunk() {
        n.accept(new TableProgress("public.a", Status.PLANNING, 0, 0, -1,
                "planning attempt 1 of 8 failed, trying again in 200 ms: canceling statement due to lock timeout"), false, Map.of("x", 1), out::add);
        report("public.a", Status.RUNNING, 0, 0, false); // planned: no chunk read yet
        report("public.a", Status.RUNNING, 1, 10, false);
        assertEquals(List.of("STARTED", "IN_PROGRESS"), types());
        assertEquals("1", data(1).get("chunks"));
    }

    @Test
    void aStoppedTableIsAbortedNotCompleted() {
        report("public.a", Status.RUNNING, 1, 10, false);
        report("public.a", Status.STOPPED, 1, 10, true);
        assertEquals(List.of("STARTED", "IN_PROGRESS", "ABORTED"), types());
    }
}
