package io.pgrepl.benchmarks.drain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.benchmarks.drain.DrainHarness.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The drain harness on a small backlog: every client (pgrepl handler and reactive faces, the CLI,
 * pgjdbc, pg_recvlogical) drains the same rows to the same end, in both phases. Only row counts are
 * checked; speed and CPU are figures for RESULTS.md, never asserted.
 */
class DrainHarnessSmokeTest {

    @Test
    void everyClientDrainsTheWholeBacklogAndTheStartupRow() throws Exception {
        DrainHarness.Options o = DrainHarness.Options.parse(new String[] {
                "--rows", "3000", "--batch", "1000", "--rounds", "1", "--startup-rounds", "1", "--verify", "--cli", "../pgrepl"});
        DrainHarness.Outcome outcome = DrainHarness.run(o);

        Set<String> drained = new TreeSet<>();
        Set<String> started = new TreeSet<>();
        for (Run r : outcome.runs()) {
            if (r.phase().equals("drain")) {
                assertEquals(3000, r.rows(), r.client() + " in the drain phase");
                drained.add(r.client());
            } else {
                assertEquals(1, r.rows(), r.client() + " in the start-up phase");
                started.add(r.client());
            }
            assertTrue(r.result().cpuSeconds() > 0, r.client() + " measured no CPU");
            assertTrue(r.result().peakRssKb() > 0, r.client() + " measured no RSS");
        }
        Set<String> expected = new TreeSet<>(List.of("handler", "reactive", "cli", "pgjdbc"));
        if (outcome.recvlogicalVersion() != null) expected.add("recvlogical");
        assertEquals(expected, drained);
        assertEquals(expected, started);

        Path tsv = Files.createTempFile("drain", ".tsv");
        DrainReport.writeTsv(outcome, tsv);
        assertEquals(2 + outcome.runs().size(), Files.readAllLines(tsv).size());
        Files.delete(tsv);
    }
}
