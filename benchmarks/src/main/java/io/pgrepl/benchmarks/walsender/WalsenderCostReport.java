package io.pgrepl.benchmarks.walsender;

import io.pgrepl.benchmarks.walsender.WalsenderCost.Case;
import io.pgrepl.benchmarks.walsender.WalsenderCost.Drain;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** {@link WalsenderCost}'s table (one column per round) and its raw drains as TSV. */
final class WalsenderCostReport {
    private WalsenderCostReport() {}

    /** A case's figures in one round, its slots summed: the server's and the clients' CPU per written insert. */
    record Cell(double walsenderUsPerChange, double sysShare, double clientUsPerChange, double wallSeconds) {}

    static Cell cell(List<Drain> drains, int round, Case c, int rowsWritten) {
        long ws = 0, sys = 0, client = 0, wall = 0;
        int n = 0;
        for (Drain d : drains) {
            if (d.round() != round || !d.c().name().equals(c.name())) continue;
            ws += d.walsenderUs();
            sys += d.walsenderSysUs();
            client += d.clientUs();
            wall = Math.max(wall, d.wallMs());
            n++;
        }
        if (n != c.slots()) throw new IllegalStateException(c.name() + " round " + round + ": " + n + " drains, " + c.slots() + " slots");
        return new Cell((double) ws / rowsWritten, ws == 0 ? 0 : (double) sys / ws, (double) client / rowsWritten, wall / 1e3);
    }

    static void print(String version, int rows, List<Case> cases, int rounds, List<Drain> drains, PrintStream out) {
        Case base = cases.stream().filter(c -> c.name().equals("text")).findFirst().orElseThrow();
        out.printf(Locale.ROOT, "%nPostgreSQL %s, %d inserts; CPU-µs per insert written, every slot of a case summed; "
                + "values per round (round 0 / round 1 / ...); ratios against `text` in the same round%n%n", version, rows);
        out.println("| case | slots | walsender CPU-µs per change | vs text | walsender's system share | client CPU-µs per change | client vs text | wall s |");
        out.println("|---|---|---|---|---|---|---|---|");
        for (Case c : cases) {
            List<Cell> cells = new ArrayList<>();
            List<Cell> bases = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                cells.add(cell(drains, r, c, rows));
                bases.add(cell(drains, r, base, rows));
            }
            out.printf(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s |%n", c.name(), c.slots(),
                    join(cells, Cell::walsenderUsPerChange, "%.2f"),
                    ratios(cells, bases, Cell::walsenderUsPerChange),
                    join(cells, x -> 100 * x.sysShare(), "%.0f%%"),
                    join(cells, Cell::clientUsPerChange, "%.2f"),
                    ratios(cells, bases, Cell::clientUsPerChange),
                    join(cells, Cell::wallSeconds, "%.1f"));
        }
    }

    private static String join(List<Cell> cells, ToDoubleFunction<Cell> f, String format) {
        List<String> s = new ArrayList<>();
        for (Cell c : cells) s.add(String.format(Locale.ROOT, format, f.applyAsDouble(c)));
        return String.join(" / ", s);
    }

    private static String ratios(List<Cell> cells, List<Cell> bases, ToDoubleFunction<Cell> f) {
        List<String> s = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            s.add(String.format(Locale.ROOT, "%.2f×", f.applyAsDouble(cells.get(i)) / f.applyAsDouble(bases.get(i))));
        }
        return String.join(" / ", s);
    }

    static void writeTsv(String version, int rows, List<Drain> drains, Path file) throws IOException {
        StringBuilder b = new StringBuilder("server\trows_written\tround\tcase\tslots\tslot\tpublication\tformat\trows_received"
                + "\twalsender_user_us\twalsender_sys_us\tclient_us\twall_ms\tload1\n");
        for (Drain d : drains) {
            b.append(version).append('\t').append(rows).append('\t').append(d.round()).append('\t').append(d.c().name())
                    .append('\t').append(d.c().slots()).append('\t').append(d.slot()).append('\t').append(d.c().publication())
                    .append('\t').append(d.c().binary() ? "binary" : "text").append('\t').append(d.rows())
                    .append('\t').append(d.walsenderUserUs()).append('\t').append(d.walsenderSysUs()).append('\t')
                    .append(d.clientUs()).append('\t').append(d.wallMs()).append('\t').append(d.load()).append('\n');
        }
        Files.writeString(file, b);
    }
}
