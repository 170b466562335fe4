package io.pgrepl.debezium.compat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code docs/debezium-compatibility.md}: written from the runs' Surefire reports, and read back by the
 * check. Only its tables are read back: per test class and run, passed/failed/skipped; per test that
 * fails under pgrepl, the majors it fails on.
 */
final class CompatTable {
    private CompatTable() {}

    static final String CLASSES_HEADING = "## Per test class";
    static final String FAILING_HEADING = "## Tests that fail under pgrepl";
    private static final int FIRST_LINE_MAX = 180;

    /** What the committed table says: figures per class and run label, failing tests per class and major. */
    record Parsed(Map<String, Map<String, String>> figures, Map<String, Map<String, Set<Integer>>> failing) {}

    /** Runs ordered pgrepl before Debezium, newest major first. */
    static List<RunResults> ordered(List<RunResults> runs) {
        return runs.stream().sorted(Comparator.comparingInt((RunResults r) -> -r.major())
                .thenComparing(r -> r.connector().equals("pgrepl") ? 0 : 1)).toList();
    }

    static String column(RunResults r) {
        return (r.connector().equals("pgrepl") ? "pgrepl" : "Debezium") + ", PostgreSQL " + r.major();
    }

    static String render(List<RunResults> unordered, String commit) {
        List<RunResults> runs = ordered(unordered);
        StringBuilder b = new StringBuilder();
        b.append(Prose.INTRO);
        String versions = runs.stream()
                .map(r -> r.serverVersion() + (r.postgis().equals("none") ? "" : " with PostGIS " + r.postgis())).distinct().collect(Collectors.joining(" and "));
        String dates = runs.stream().map(RunResults::date).distinct().sorted().collect(Collectors.joining(", "));
        b.append("Last run: pgrepl at commit `").append(commit).append("`, ").append(dates)
                .append("; Debezium 3.6.1.Final's test jar; PostgreSQL ").append(versions)
                .append("; `plugin.name=pgoutput`, `skipLongRunningTests=true`.\n\n");

        b.append(CLASSES_HEADING).append("\n\npassed/failed/skipped per run.\n\n| test class |");
        runs.forEach(r -> b.append(' ').append(column(r)).append(" |"));
        b.append("\n|---|");
        runs.forEach(r -> b.append("---|"));
        b.append('\n');
        Set<String> classes = new TreeSet<>();
        runs.forEach(r -> classes.addAll(r.classes().keySet()));
        for (String cls : classes) {
            b.append("| ").append(cls).append(" |");
            for (RunResults r : runs) {
                RunResults.ClassResult c = r.classes().get(cls);
                b.append(' ').append(c == null ? "not run" : c.figures()).append(" |");
            }
            b.append('\n');
        }
        b.append("| all |");
        for (RunResults r : runs) {
            int p = 0, f = 0, s = 0;
            for (RunResults.ClassResult c : r.classes().values()) {
                p += c.passed();
                f += c.failed();
                s += c.skipped();
            }
            b.append(' ').append(p).append('/').append(f).append('/').append(s).append(" |");
        }
        b.append("\n\n");

        List<RunResults> pgrepl = runs.stream().filter(r -> r.connector().equals("pgrepl")).toList();
        if (pgrepl.isEmpty()) return b.toString();
        RunResults newest = pgrepl.get(0);
        b.append("## Why pgrepl fails\n\nFailures under pgrepl on PostgreSQL ").append(newest.major())
                .append(" by cause (classified by pattern on the failure, `FailureCause`), most first.\n\n")
                .append("| cause | tests |\n|---|---|\n");
        Map<String, Integer> causes = new TreeMap<>();
        Map<String, Integer> refusedKeys = new TreeMap<>();
        newest.classes().values().forEach(c -> c.failures().forEach(f -> {
            String cause = FailureCause.of(f);
            if (cause.startsWith(FailureCause.REFUSED)) {
                causes.merge("refused setting (below)", 1, Integer::sum);
                for (String k : cause.substring(FailureCause.REFUSED.length()).split(", ")) refusedKeys.merge(k, 1, Integer::sum);
            } else {
                causes.merge(cause, 1, Integer::sum);
            }
        }));
        countRows(b, causes);
        if (!refusedKeys.isEmpty()) {
            b.append("\nThe refused settings, with the tests refused on each (a test may be refused on several):\n\n")
                    .append("| setting | tests |\n|---|---|\n");
            countRows(b, refusedKeys);
        }
        b.append('\n');

        b.append(FAILING_HEADING).append("\n\nThe cause and first line are from the newest major the test fails on.\n\n")
                .append("| test class | test | PostgreSQL | cause | first line of the failure |\n|---|---|---|---|---|\n");
        Map<String, Map<String, List<Object[]>>> byTest = new TreeMap<>();
        for (RunResults r : pgrepl) {
            r.classes().forEach((cls, c) -> c.failures().forEach(f -> byTest.computeIfAbsent(cls, k -> new TreeMap<>())
                    .computeIfAbsent(f.test(), k -> new ArrayList<>()).add(new Object[] {r.major(), f})));
        }
        byTest.forEach((cls, tests) -> tests.forEach((test, where) -> {
            RunResults.Failure first = (RunResults.Failure) where.get(0)[1];
            String majors = where.stream().map(o -> o[0].toString()).collect(Collectors.joining(", "));
            b.append("| ").append(cls).append(" | ").append(cell(test)).append(" | ").append(majors).append(" | ")
                    .append(cell(FailureCause.of(first))).append(" | ").append(cell(shorten(first.firstLine()))).append(" |\n");
        }));
        b.append('\n');

        List<RunResults> debezium = runs.stream().filter(r -> r.connector().equals("debezium")).toList();
        if (!debezium.isEmpty()) {
            b.append("## Tests that fail under Debezium's own connector\n\n")
                    .append("The same classes on the same server with Debezium's connector: what fails here is the test")
                    .append(" environment's (see above), not pgrepl's.\n\n")
                    .append("| test class | test | PostgreSQL | first line of the failure |\n|---|---|---|---|\n");
            Map<String, Map<String, List<Object[]>>> dz = new TreeMap<>();
            for (RunResults r : debezium) {
                r.classes().forEach((cls, c) -> c.failures().forEach(f -> dz.computeIfAbsent(cls, k -> new TreeMap<>())
                        .computeIfAbsent(f.test(), k -> new ArrayList<>()).add(new Object[] {r.major(), f})));
            }
            if (dz.isEmpty()) b.append("| (none) | | | |\n");
            dz.forEach((cls, tests) -> tests.forEach((test, where) -> b.append("| ").append(cls).append(" | ")
                    .append(cell(test)).append(" | ")
                    .append(where.stream().map(o -> o[0].toString()).collect(Collectors.joining(", "))).append(" | ")
                    .append(cell(shorten(((RunResults.Failure) where.get(0)[1]).firstLine()))).append(" |\n")));
            b.append('\n');
        }
        return b.toString();
    }

    private static void countRows(StringBuilder b, Map<String, Integer> counts) {
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()
                        .thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> b.append("| ").append(cell(e.getKey())).append(" | ").append(e.getValue()).append(" |\n"));
    }

    static Parsed parse(String doc) {
        Map<String, Map<String, String>> figures = new LinkedHashMap<>();
        Map<String, Map<String, Set<Integer>>> failing = new TreeMap<>();
        List<String> header = null;
        String section = "";
        for (String line : doc.split("\n")) {
            if (line.startsWith("## ")) {
                section = line.strip();
                header = null;
                continue;
            }
            if (!line.startsWith("|") || line.startsWith("|---")) continue;
            List<String> cells = cells(line);
            if (header == null) {
                header = cells;
                continue;
            }
            if (section.equals(CLASSES_HEADING)) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i < cells.size() && i < header.size(); i++) row.put(header.get(i), cells.get(i));
                figures.put(cells.get(0), row);
            } else if (section.equals(FAILING_HEADING)) {
                Set<Integer> majors = new TreeSet<>();
                for (String m : cells.get(2).split(",")) majors.add(Integer.parseInt(m.strip()));
                failing.computeIfAbsent(cells.get(0), k -> new TreeMap<>()).put(uncell(cells.get(1)), majors);
            }
        }
        return new Parsed(figures, failing);
    }

    private static List<String> cells(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        String body = line.strip();
        body = body.substring(1, body.endsWith("|") && !body.endsWith("\\|") ? body.length() - 1 : body.length());
        for (int i = 0; i < body.length(); i++) {
            char ch = body.charAt(i);
            if (ch == '\\' && i + 1 < body.length() && body.charAt(i + 1) == '|') {
                cur.append("\\|");
                i++;
            } else if (ch == '|') {
                out.add(cur.toString().strip());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        out.add(cur.toString().strip());
        return out;
    }

    static String cell(String s) {
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("\r", " ").strip();
    }

    static String uncell(String s) {
        return s.replace("\\|", "|").replace("\\\\", "\\");
    }

    private static String shorten(String s) {
        String one = s.replace('\n', ' ').replace('\r', ' ').strip();
        return one.length() <= FIRST_LINE_MAX ? one : one.substring(0, FIRST_LINE_MAX - 1) + "…";
    }
}
