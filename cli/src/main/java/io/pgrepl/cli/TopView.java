package io.pgrepl.cli;

import io.pgrepl.client.slot.SlotHealth;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * What {@code pgrepl top} shows: the last poll, a history of retained WAL per slot, the sort and the
 * filter; renders to lines of at most {@code width} characters (escape sequences excluded). No I/O.
 */
final class TopView {
    /** A sortable column: its key and whether larger values come first by default. */
    enum Sort {
        SLOT("slot", false), LAG("lag", true), RETAINED("retained", true), SAFE("safe_wal", false), SPILL("spill", true);

        final String label;
        final boolean descending;

        Sort(String label, boolean descending) {
            this.label = label;
            this.descending = descending;
        }
    }

    static final int TREND_WIDTH = 20;
    private static final char[] BLOCKS = {'\u2581', '\u2582', '\u2583', '\u2584', '\u2585', '\u2586', '\u2587', '\u2588'};
    private static final char[] ASCII = {'_', '.', ':', '-', '=', '+', '*', '#'};

    private final int historySamples;
    private final boolean colour;
    private final boolean unicode;
    private final Map<String, Deque<Long>> history = new HashMap<>();
    private List<SlotHealth> slots = List.of();
    private Sort sort = Sort.SLOT;
    private boolean reversed;
    private String filter = "";
    private boolean editingFilter;
    private String status = "";

    /**
     * @param historySamples polls kept per slot for the trend (e.g. 5 minutes of 1 s polls)
     * @param colour         ANSI colours
     * @param unicode        block characters for the trend (else ASCII)
     */
    TopView(int historySamples, boolean colour, boolean unicode) {
        this.historySamples = historySamples;
        this.colour = colour;
        this.unicode = unicode;
    }

    void update(List<SlotHealth> polled) {
        slots = polled;
        Map<String, Deque<Long>> kept = new HashMap<>();
        for (SlotHealth h : polled) {
            Deque<Long> d = history.getOrDefault(h.slotName(), new ArrayDeque<>());
            d.addLast(h.retainedWal() == null ? 0L : h.retainedWal());
            while (d.size() > historySamples) d.removeFirst();
            kept.put(h.slotName(), d);
        }
        history.clear();
        history.putAll(kept);
        status = "";
    }

    void status(String s) {
        status = s;
    }

    /** Applies one key; returns false when the key asks to quit. */
    boolean key(int c) {
        if (editingFilter) {
            if (c == '\r' || c == '\n') editingFilter = false;
            else if (c == 27) { // Esc: drop the filter
                editingFilter = false;
                filter = "";
            } else if (c == 127 || c == 8) {
                if (!filter.isEmpty()) filter = filter.substring(0, filter.length() - 1);
            } else if (c >= 32 && c < 127) filter += (char) c;
            return true;
        }
        switch (c) {
            case 'q', 'Q', 3 -> { return false; }
            case 's' -> { sort = Sort.values()[(sort.ordinal() + 1) % Sort.values().length]; reversed = false; }
            case 'r' -> reversed = !reversed;
            case '/' -> { editingFilter = true; filter = ""; }
            default -> { }
        }
        return true;
    }

    Sort sort() {
        return sort;
    }

    String filter() {
        return filter;
    }

    /** The slots shown, filtered and sorted. */
    List<SlotHealth> rows() {
        List<SlotHealth> out = new ArrayList<>();
        for (SlotHealth h : slots) {
            if (filter.isEmpty() || h.slotName().contains(filter)) out.add(h);
        }
        Comparator<SlotHealth> c = switch (sort) {
            case SLOT -> Comparator.comparing(SlotHealth::slotName);
            case LAG -> numeric(SlotHealth::lagBytes);
            case RETAINED -> numeric(SlotHealth::retainedWal);
            case SAFE -> numeric(SlotHealth::safeWalSize);
            case SPILL -> numeric(h -> h.spill() == null ? null : h.spill().spillBytes());
        };
        if (sort.descending != reversed) c = c.reversed();
        // Unknown values last whatever the direction; the name breaks ties.
        Comparator<SlotHealth> known = Comparator.comparing(h -> value(h) == null);
        out.sort(known.thenComparing(c).thenComparing(SlotHealth::slotName));
        return out;
    }

    private Long value(SlotHealth h) {
        return switch (sort) {
            case SLOT -> 0L;
            case LAG -> h.lagBytes();
            case RETAINED -> h.retainedWal();
            case SAFE -> h.safeWalSize();
            case SPILL -> h.spill() == null ? null : h.spill().spillBytes();
        };
    }

    private static Comparator<SlotHealth> numeric(Function<SlotHealth, Long> f) {
        return Comparator.comparing(h -> f.apply(h) == null ? Long.MIN_VALUE : f.apply(h));
    }

    static final String HEADER_FORMAT = "%-24s %-9s %-6s %-7s %-15s %9s %7s %9s %-20s %-10s %9s %9s";
    /** The plain table's: no trend (one poll has none). */
    static final String TABLE_FORMAT = "%-24s %-9s %-6s %-7s %-15s %9s %7s %9s%s %-10s %9s %9s";

    static String tableHeader() {
        return String.format(Locale.ROOT, TABLE_FORMAT, "SLOT", "PLUGIN", "ACTIVE", "PID", "CLIENT", "LAG", "LAG_S",
                "RETAINED", "", "WAL_STATUS", "SAFE_WAL", "SPILL");
    }

    /** The full screen: title, key help, header, rows, status; each line at most {@code width} visible characters. */
    List<String> render(String title, int width, int height) {
        List<String> lines = new ArrayList<>();
        String sortLabel = sort.label + ((sort.descending != reversed) ? " desc" : " asc");
        lines.add(fit(title + "  sort: " + sortLabel + (filter.isEmpty() && !editingFilter ? "" : "  filter: " + filter
                + (editingFilter ? "_" : "")), width));
        lines.add(fit(editingFilter ? "filter: type a substring of the slot name, Enter to keep, Esc to clear"
                : "keys: s sort column, r reverse, / filter, q quit", width));
        String header = String.format(Locale.ROOT, HEADER_FORMAT, "SLOT", "PLUGIN", "ACTIVE", "PID", "CLIENT", "LAG",
                "LAG_S", "RETAINED", "RETAINED_TREND", "WAL_STATUS", "SAFE_WAL", "SPILL");
        lines.add(colour ? "\033[7m" + fit(header, width) + "\033[0m" : fit(header, width));
        List<SlotHealth> rows = rows();
        int room = Math.max(1, height - lines.size() - 1);
        for (int i = 0; i < rows.size() && i < room; i++) lines.add(row(rows.get(i), width, true));
        if (rows.size() > room) lines.add(fit("... " + (rows.size() - room) + " more (filter with /)", width));
        else if (rows.isEmpty()) lines.add(fit(slots.isEmpty() ? "(no replication slots)" : "(no slot matches the filter)", width));
        if (!status.isEmpty()) lines.add(colour ? "\033[31m" + fit(status, width) + "\033[0m" : fit(status, width));
        return lines;
    }

    /** One slot's line; without the trend column in the plain table ({@code trend} false). */
    String row(SlotHealth h, int width, boolean trend) {
        String status = h.walStatus() == null ? "-" : h.walStatus();
        String line = String.format(Locale.ROOT, trend ? HEADER_FORMAT : TABLE_FORMAT, cut(h.slotName(), 24), cut(orDash(h.plugin()), 9),
                h.active() ? "yes" : "no", h.activePid() == null ? "-" : h.activePid().toString(),
                cut(orDash(h.clientAddr()), 15), bytes(h.lagBytes()), seconds(h.lagSeconds()), bytes(h.retainedWal()),
                trend ? trend(h.slotName()) : "", status, h.safeWalSize() == null ? "-" : bytes(h.safeWalSize()),
                h.spill() == null ? "-" : bytes(h.spill().spillBytes()));
        line = fit(line, width);
        if (!colour) return line;
        String code = switch (status) {
            case "extended" -> "\033[33m";
            case "unreserved", "lost" -> "\033[1;31m";
            default -> h.invalidated() ? "\033[1;31m" : null;
        };
        return code == null ? line : code + line + "\033[0m";
    }

    private String trend(String slot) {
        Deque<Long> d = history.get(slot);
        if (d == null || d.isEmpty()) return "";
        List<Long> samples = new ArrayList<>(d);
        // Buckets of consecutive polls, newest at the right; each shows its highest value.
        int per = Math.max(1, (samples.size() + TREND_WIDTH - 1) / TREND_WIDTH);
        List<Long> buckets = new ArrayList<>();
        for (int i = samples.size(); i > 0 && buckets.size() < TREND_WIDTH; i -= per) {
            long max = 0;
            for (int j = Math.max(0, i - per); j < i; j++) max = Math.max(max, samples.get(j));
            buckets.add(0, max);
        }
        long top = buckets.stream().mapToLong(Long::longValue).max().orElse(0);
        char[] ramp = unicode ? BLOCKS : ASCII;
        StringBuilder sb = new StringBuilder();
        for (long b : buckets) sb.append(ramp[top == 0 ? 0 : (int) Math.min(ramp.length - 1, b * ramp.length / (top + 1))]);
        return sb.toString();
    }

    static String bytes(Long b) {
        return ByteSizes.of(b);
    }

    private static String seconds(Double s) {
        return s == null ? "-" : String.format(Locale.ROOT, "%.1f", s);
    }

    private static String orDash(String s) {
        return s == null ? "-" : s;
    }

    private static String cut(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "~";
    }

    private static String fit(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width);
    }
}
