package io.pgrepl.debezium.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * docs/debezium-compatibility.md against this build's runs of Debezium's tests (the report directories
 * {@code debezium.compat.runs} names, all of them when unset). In the default build
 * (one pgrepl run, a few classes) every test that ran must have the outcome the table gives it: listed
 * as failing on that major exactly when it failed. With {@code -Pdebezium-suite} the table is first
 * written anew from all runs, then read back and checked the same way.
 */
class CompatibilityTableTest {
    private static final Path REPORTS = Path.of(System.getProperty("debezium.compat.reports", "target/debezium-reports"));
    private static final Path DOC = Path.of(System.getProperty("debezium.compat.doc", "../docs/debezium-compatibility.md"));

    @Test
    void tableAgreesWithTheRun() throws IOException {
        List<RunResults> runs = runs();
        assertFalse(runs.isEmpty(), "no run of Debezium's tests under " + REPORTS.toAbsolutePath());
        for (RunResults r : runs) {
            assertEquals(r.connector(), r.loadedConnector(), r.label() + ": the tests got the wrong PostgresConnector"
                    + " (the module's test classes must come before Debezium's jar, and the baseline must not have them)");
        }
        for (RunResults r : runs) {
            if (r.postgis().equals("none")) {
                // The forked test JVM's own words go to a report file: here they reach the build's console.
                System.out.println("debezium-compat: " + r.label() + " ran without PostGIS: tests that create "
                        + "PostGIS types fail there for both connectors (Debian 12: apt-get install -y "
                        + "postgresql-15-postgis-3, then -Dcompat.pg.version=15)");
            }
        }
        if (Boolean.getBoolean("debezium.compat.regenerate")) {
            Files.writeString(DOC, CompatTable.render(runs, Git.head(DOC.getParent())), StandardCharsets.UTF_8);
        }
        CompatTable.Parsed table = CompatTable.parse(Files.readString(DOC, StandardCharsets.UTF_8));
        List<String> disagreements = new ArrayList<>();
        for (RunResults r : runs) disagreements.addAll(disagreements(r, table));
        assertTrue(disagreements.isEmpty(), disagreements.size() + " disagreement(s) between " + DOC.getFileName()
                + " and this run (fix the regression, or regenerate the table with -Pdebezium-suite):\n"
                + String.join("\n", disagreements));
    }

    /** What {@code run} and the table disagree on; failing tests are compared for pgrepl's runs only. */
    static List<String> disagreements(RunResults run, CompatTable.Parsed table) {
        List<String> out = new ArrayList<>();
        String column = CompatTable.column(run);
        boolean pgrepl = run.connector().equals("pgrepl");
        run.classes().forEach((cls, result) -> {
            Map<String, String> row = table.figures().get(cls);
            if (row == null || !row.containsKey(column)) {
                out.add(cls + ": not in the table's column \"" + column + "\"");
                return;
            }
            String[] committed = row.get(column).split("/");
            boolean wholeClass = committed.length == 3 && sum(committed) == result.total();
            if (wholeClass && !row.get(column).equals(result.figures())) {
                out.add(cls + " (" + column + "): the table says " + row.get(column) + ", the run " + result.figures());
            }
            if (!pgrepl) return;
            Map<String, Set<Integer>> failing = table.failing().getOrDefault(cls, Map.of());
            for (RunResults.Failure f : result.failures()) {
                if (!failing.getOrDefault(f.test(), Set.of()).contains(run.major())) {
                    out.add(cls + "." + f.test() + " fails on PostgreSQL " + run.major() + " (the table has it passing): "
                            + f.firstLine());
                }
            }
            for (String passed : result.passedTests()) {
                if (failing.getOrDefault(passed, Set.of()).contains(run.major())) {
                    out.add(cls + "." + passed + " passes on PostgreSQL " + run.major() + " (the table has it failing)");
                }
            }
        });
        return out;
    }

    private static int sum(String[] figures) {
        int s = 0;
        for (String f : figures) s += Integer.parseInt(f.strip());
        return s;
    }

    private static List<RunResults> runs() throws IOException {
        List<RunResults> runs = new ArrayList<>();
        if (!Files.isDirectory(REPORTS)) return runs;
        String only = System.getProperty("debezium.compat.runs", "");
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(REPORTS, Files::isDirectory)) {
            for (Path d : dirs) {
                if (!only.isBlank() && !List.of(only.split(",")).contains(d.getFileName().toString())) continue;
                RunResults r = RunResults.read(d);
                if (r != null) runs.add(r);
            }
        }
        return runs;
    }
}
