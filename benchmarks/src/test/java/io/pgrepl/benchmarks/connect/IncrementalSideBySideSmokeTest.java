package io.pgrepl.benchmarks.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.benchmarks.connect.IncrementalSideBySide.Leg;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The incremental side-by-side harness's pgrepl legs on a small table, without the Connect worker (its
 * start-up alone would take most of a minute; RESULTS.md's runs exercise the Debezium and connector
 * legs): the engine, in its own JVM and triggered by Debezium's signal row, and the copy each hand over
 * exactly the table's rows, with their CPU measured. Speed is never asserted.
 */
class IncrementalSideBySideSmokeTest {

    @Test
    void theEngineAndTheCopyEachDeliverTheWholeTableFromTheirOwnProcess() throws Exception {
        IncrementalSideBySide.Options o = IncrementalSideBySide.Options.parse(new String[] {
                "--rows", "5000", "--rounds", "1", "--chunks", "1024", "--legs", "engine,copy", "--timeout", "60"});
        IncrementalSideBySide.Outcome outcome = IncrementalSideBySide.run(o);

        List<Leg> legs = outcome.legs();
        assertEquals(List.of("copy", "engine"), legs.stream().map(Leg::leg).toList());
        for (Leg l : legs) {
            assertEquals(5000, l.records(), l.leg() + " rows delivered");
            assertTrue(l.seconds() > 0, l.leg() + " timing");
            assertTrue(l.cpu().get("process") > 0, l.leg() + " measured no process CPU");
        }
        assertEquals(1024, legs.get(1).chunk());
    }

    @Test
    void theDebeziumSignalRowIsTheOneDebeziumDocuments() throws Exception {
        String insert = IncrementalSideBySide.signalInsert("id-1", "public.t");
        int open = insert.indexOf("'{");
        JsonNode data = new ObjectMapper().readTree(insert.substring(open + 1, insert.lastIndexOf("}'") + 1));
        assertEquals("public.t", data.path("data-collections").path(0).asText());
        assertEquals("incremental", data.path("type").asText());
        assertTrue(insert.startsWith("INSERT INTO public.dbz_signal VALUES ('id-1', 'execute-snapshot', "), insert);
    }
}
