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
 * The drain harness on a small backlog: every client (pgrepl handler and reactive faces, Reactor over the Flow face, the CLI,
 * pgjdbc, pg_recvlogical) drains the same rows to the same end. Only row counts are checked; speed
 * and CPU are figures for RESULTS.md, never asserted. The start-up phase (the same drain of a
 * one-row transaction) is left out: five more JVM launches would double the test's time.
 */
class DrainHarnessSmokeTest {

    @Test
    void everyClientDrainsTheWholeBacklog() throws Exception {
        DrainHarness.Options o = DrainHarness.Options.parse(new String[] {
                "--rows", "3000", "--batch", "1000", "--rounds", "1", "--startup-rounds", "0", "--verify", "--cli", "../pgrepl"});
        DrainHarness.Outcome outcome = DrainHarness.run(o);

        Set<String> drained = new TreeSet<>();
        for (Run r : outcome.runs()) {
            assertEquals("drain", r.phase());
            assertEquals(3000, r.rows(), r.client() + " rows");
            drained.add(r.client());
            assertTrue(r.result().cpuSeconds() > 0, r.client() + " measured no CPU");
            assertTrue(r.result().peakRssKb() > 0, r.client() + " measured no RSS");
        }
        Set<String> expected = new TreeSet<>(List.of("handler", "reactive", "flow", "reactor", "cli", "pgjdbc"));
        if (outcome.recvlogicalVersion() != null) expected.add("recvlogical");
        assertEquals(expected, drained);

        Path tsv = Files.createTempFile("drain", ".tsv");
        DrainReport.writeTsv(outcome, tsv);
        assertEquals(2 + outcome.runs().size(), Files.readAllLines(tsv).size());
        Files.delete(tsv);
    }
}
