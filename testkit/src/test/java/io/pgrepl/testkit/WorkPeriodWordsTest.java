package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The project speaks of its benchmarks, versions and dates: no doc, result, script, test or
 * comment names the period or the tracker item it was written in. Runs in {@code mvn verify} over
 * the whole repository (build output and version control left out). The phrases below are built
 * by concatenation, so that this file does not carry them.
 */
class WorkPeriodWordsTest {
    private static final String SESSION = "session";
    private static final String ISSUE = "issue";

    @Test
    void theRepositoryNamesNoWorkPeriodOrTrackerItem() {
        Path root = WorkPeriodWords.repositoryRoot();
        assertTrue(Files.isDirectory(root.resolve("benchmarks/results")), root + " is not the repository's root");
        List<WorkPeriodWords.Finding> found = WorkPeriodWords.scanTree(root);
        if (!found.isEmpty()) {
            fail(found.size() + " phrase(s) name a work period or a tracker item; speak of the benchmark, the version"
                    + " or the date instead (rules and the allow-list: testkit's WorkPeriodWords):\n  "
                    + found.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
        }
    }

    @Test
    void eachRuleCatchesTheWordingItIsFor() {
        List<String> caught = List.of(
                "figures of the eighth " + SESSION + ", load 14-40",
                "RESULTS.md, \"Fourth " + SESSION + "\"",
                "benchmarks/results/" + SESSION + "12-quiet/drain.log",
                "measured in this " + SESSION + " only",
                "not changed this " + "round",
                "before the allocation " + "round",
                "shared with other " + SESSION + "s' builds",
                "class " + ISSUE.substring(0, 1).toUpperCase() + ISSUE.substring(1) + "20SettingsTest {",
                "the ratios " + ISSUE + " 18's targets are stated in",
                "fixed in (#" + "31)",
                "Defect " + "11: the work per call",
                "the failure " + "help" + "er-29 saw once",
                "item 3 of the " + "brief",
                "two other engineers' " + "builds");
        for (String line : caught) {
            assertEquals(1, WorkPeriodWords.scan("sample", line).size(), () -> "not caught once: " + line + " -> "
                    + WorkPeriodWords.scan("sample", line));
        }
    }

    @Test
    void postgresAndBenchmarkWordingIsLeftAlone() {
        List<String> fine = List.of(
                "SET " + SESSION + "_replication_role = replica",
                "a worker " + SESSION + " left in pg_stat_activity",
                "the " + SESSION + "'s lock_timeout",
                "DrainHarness --rounds 3 --startup-rounds 0",
                "round 0 in the listed order, round 1 reversed",
                "each variant's ratio to that round's copy",
                "Debezium's warm second round gains as much",
                "stroke=\"#222\" fill=\"#555\"",
                "PKCS#8 keys, {@link FlowOptions#withEventLoopDelivery()}",
                "0/16B3748#3.1 (change 3, record 1 of it)",
                "a NOTIFY for a channel this " + SESSION + " listens on",
                "the issue tracking systems of the licensor");
        for (String line : fine) {
            assertEquals(List.of(), WorkPeriodWords.scan("sample", line), line);
        }
    }

    @Test
    void aFindingNamesFileLineAndPhraseAndFileNamesCountToo(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("notes.md"), "first line\nas measured in the ninth " + SESSION + ".\n");
        Files.createDirectories(dir.resolve("results/" + ISSUE + "22-runs"));
        Files.write(dir.resolve("results/blob.bin"), new byte[] {0, 1, 2, 't', 'h', 'i', 's', ' ', 'r', 'o', 'u', 'n', 'd'});
        Files.createDirectories(dir.resolve("target"));
        Files.writeString(dir.resolve("target/built.md"), "this " + "round");
        List<String> found = WorkPeriodWords.scanTree(dir).stream().map(Object::toString).sorted().toList();
        assertEquals(List.of(
                "notes.md:2: \"ninth " + SESSION + "\" (an ordinal session)",
                "results/" + ISSUE + "22-runs/ (its name): \"" + ISSUE + "22\" (an issue number)"), found);
    }
}
