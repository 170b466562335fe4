package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotHealthListener;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.codec.Lsn;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code pgrepl top URL}: every replication slot of a server, refreshed every second, from the
 * server's own views (the slot monitor); {@code --once} prints one table or JSON array and exits.
 */
final class TopCommand implements Main.Command {
    private static final List<Opts.Spec> SPECS = List.of(
            Opts.Spec.flag("once", "print the slots once and exit (a table; JSON with --json)"),
            Opts.Spec.flag("json", "with --once: one JSON array, an object per slot"),
            Opts.Spec.value("interval", 'i', "SECONDS", "refresh interval", "1"),
            Opts.Spec.flag("no-color", "no colours (also: NO_COLOR set, TERM=dumb, output not a terminal)"));

    @Override
    public String summary() {
        return "live view of every replication slot: lag, retained WAL and its trend, wal_status, spill";
    }

    @Override
    public Opts.Help help() {
        return new Opts.Help("pgrepl top [options] [URL]",
                "Shows every replication slot of the server, one row each, refreshed every interval, read from\n"
                        + "pg_replication_slots, pg_stat_replication and (14+) pg_stat_replication_slots over an ordinary\n"
                        + "connection (the role needs pg_monitor to see other roles' walsenders). Keys: s cycles the sort\n"
                        + "column (slot, lag, retained, safe_wal, spill), r reverses it, / filters by slot name (Enter keeps,\n"
                        + "Esc clears), q quits. RETAINED_TREND is the retained WAL over the last minutes. Without a\n"
                        + "terminal it prints a plain table every interval; --once prints one and exits.",
                SPECS, "pgrepl top postgresql://monitor@db/app\npgrepl top --once --json postgresql://monitor@db/app | jq .");
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Opts.Parsed p = Opts.parse(SPECS, args);
        if (p.positional.size() > 1) throw new UsageException("more than one URL");
        if (p.has("json") && !p.has("once")) throw new UsageException("--json needs --once");
        int interval = p.intValue("interval", 1, 1, 3600);
        ConnectionConfig cfg = IdentifyCommand.parse(p.positional.isEmpty() ? "" : p.positional.get(0)).toBuilder()
                .replication(ReplicationMode.NONE).build();
        String where = cfg.host() + ":" + cfg.port();
        if (p.has("once")) {
            try (SlotMonitor m = SlotMonitor.builder(cfg).build()) {
                List<SlotHealth> slots = IdentifyCommand.await(m.pollNow());
                if (p.has("json")) out.println(json(slots));
                else table(slots, out);
            }
            return 0;
        }
        // Interactive only with a terminal on both ends (System.console() is null when either is redirected)
        // that understands cursor movement.
        boolean screenCapable = System.console() != null && Main.ownsProcess && !"dumb".equals(System.getenv("TERM"));
        if (!screenCapable) return lines(cfg, interval, out);
        boolean colour = !p.has("no-color") && TopTerminal.colourAllowed();
        TopView view = new TopView(300 / interval + 1, colour, TopTerminal.utf8Locale());
        AtomicReference<List<SlotHealth>> polled = new AtomicReference<>();
        AtomicReference<String> failure = new AtomicReference<>();
        try (SlotMonitor m = SlotMonitor.builder(cfg).interval(Duration.ofSeconds(interval)).listener(
                new SlotHealthListener() {
                    @Override
                    public void onHealth(List<SlotHealth> slots) {
                        failure.set(null);
                        polled.set(slots);
                    }

                    @Override
                    public void onMonitorError(Throwable error, int consecutiveFailures) {
                        failure.set("poll failed (" + consecutiveFailures + " in a row, retrying): " + CliErrors.describe(error));
                    }
                }).build()) {
            // A first poll before the screen is taken: a wrong URL or password is an error message and exit 1,
            // not a full screen of retries.
            polled.set(IdentifyCommand.await(m.pollNow()));
            m.start();
            TopTerminal term = TopTerminal.open(screen(out));
            if (term == null) {
                m.close();
                return lines(cfg, interval, out);
            }
            try (term) {
                return loop(term, view, polled, failure, where);
            }
        }
    }

    private static int loop(TopTerminal term, TopView view, AtomicReference<List<SlotHealth>> polled,
                            AtomicReference<String> failure, String where) throws InterruptedException {
        List<SlotHealth> shown = null;
        while (true) {
            List<SlotHealth> now = polled.get();
            if (now != null && now != shown) {
                view.update(now);
                shown = now;
            }
            if (failure.get() != null) view.status(failure.get());
            int[] size = term.size();
            String version = now == null || now.isEmpty() ? "" : " PG " + now.get(0).serverMajor();
            term.draw(view.render("pgrepl top  " + where + version + "  " + (shown == null ? "connecting"
                    : Counts.of(shown.size(), "slot", "slots")) + "  " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS), size[0], size[1]));
            int k = term.nextKey(250);
            if (k == -2) return 0;
            if (k >= 0 && !view.key(k)) return 0;
        }
    }

    /** The screen: stdout as UTF-8 when the locale is (the trend's block characters), else as given. */
    private static PrintStream screen(PrintStream out) {
        return out == System.out && TopTerminal.utf8Locale()
                ? new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8) : out;
    }

    /** No terminal: a plain table per interval, until killed. */
    private static int lines(ConnectionConfig cfg, int interval, PrintStream out) throws Exception {
        try (SlotMonitor m = SlotMonitor.builder(cfg).build()) {
            while (!out.checkError()) {
                table(IdentifyCommand.await(m.pollNow()), out);
                out.println();
                out.flush();
                Thread.sleep(interval * 1000L);
            }
        }
        return 1;
    }

    static void table(List<SlotHealth> slots, PrintStream out) {
        TopView v = new TopView(1, false, false);
        out.println(TopView.tableHeader().stripTrailing());
        for (SlotHealth h : slots) out.println(v.row(h, Integer.MAX_VALUE, false).stripTrailing());
    }

    static String json(List<SlotHealth> slots) {
        List<Object> arr = new ArrayList<>();
        for (SlotHealth h : slots) {
            arr.add(Json.object()
                    .put("slot_name", h.slotName())
                    .put("plugin", h.plugin())
                    .put("slot_type", h.slotType())
                    .put("database", h.database())
                    .put("temporary", h.temporary())
                    .put("active", h.active())
                    .put("active_pid", h.activePid())
                    .put("client_addr", h.clientAddr())
                    .put("current_lsn", lsn(h.currentLsn()))
                    .put("restart_lsn", lsn(h.restartLsn()))
                    .put("confirmed_flush_lsn", lsn(h.confirmedFlushLsn()))
                    .put("retained_wal_bytes", h.retainedWal())
                    .put("lag_bytes", h.lagBytes())
                    .put("lag_seconds", h.lagSeconds())
                    .put("wal_status", h.walStatus())
                    .put("safe_wal_size", h.safeWalSize())
                    .put("conflicting", h.conflicting())
                    .put("invalidation_reason", h.invalidationReason())
                    .put("inactive_since", h.inactiveSince() == null ? null : h.inactiveSince().toString())
                    .put("inactive_seconds", h.inactiveSeconds())
                    .put("spill_bytes", h.spill() == null ? null : h.spill().spillBytes())
                    .put("spill_txns", h.spill() == null ? null : h.spill().spillTxns())
                    .put("stream_bytes", h.spill() == null ? null : h.spill().streamBytes())
                    .put("idle_replication_slot_timeout_seconds", h.idleTimeoutSeconds())
                    .put("server_major", h.serverMajor())
                    .put("in_recovery", h.inRecovery()));
        }
        return Json.write(arr);
    }

    private static String lsn(long l) {
        return l == Lsn.INVALID ? null : Lsn.format(l);
    }
}
