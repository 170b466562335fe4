package io.pgrepl.benchmarks.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.benchmarks.connect.ConnectSideBySide.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The side-by-side harness on a small backlog: pgrepl's connector streams 2,000 rows through a real
 * Connect worker into a real broker, and the harness counts the topic exactly (its end offset, and the
 * distinct row ids read back and parsed). Debezium's run is left out to keep the test near a minute
 * (the Connect worker alone takes most of it on a loaded box); RESULTS.md's runs exercise it. Speed
 * and CPU are figures for RESULTS.md, never asserted; only that they were measured.
 */
class ConnectSideBySideSmokeTest {

    @Test
    void theConnectorStreamsTheWholeBacklogAndIsCountedExactly() throws Exception {
        ConnectSideBySide.Options o = ConnectSideBySide.Options.parse(new String[] {
                "--rows", "2000", "--batch", "1000", "--rounds", "1", "--verify", "--timeout", "120", "--connectors", "pgrepl"});
        ConnectSideBySide.Outcome outcome = ConnectSideBySide.run(o);

        List<Run> runs = outcome.runs();
        assertEquals(List.of("pgrepl"), runs.stream().map(Run::connector).toList());
        for (Run r : runs) {
            assertEquals("stream", r.phase());
            assertEquals(2000, r.records(), r.connector() + " records in its topic");
            assertEquals(2000, r.distinctIds(), r.connector() + " distinct row ids");
            assertTrue(r.seconds() > 0 && r.firstRecordSeconds() <= r.seconds(), r.connector() + " timing");
            assertTrue(r.cpu().get("task") > 0, r.connector() + " measured no task-thread CPU");
            assertTrue(r.cpu().get("process") >= r.cpu().get("connector"), r.connector() + " CPU split");
        }
    }
}
