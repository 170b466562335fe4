package io.pgrepl.cli;

import io.pgrepl.client.snapshot.SnapshotProgress;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.codec.Lsn;
import java.io.PrintStream;

/**
 * What {@code pgrepl stream} says on stderr: with -v, "streaming from slot S at LSN X",
 * "reconnected at X" and, when it moves, "confirmed up to X"; a progress line every second when
 * stderr is a terminal (redrawn in place), or every status interval with -v otherwise. During a
 * --snapshot the snapshot's own progress takes the progress line's place (every second); its rows
 * are not counted as changes, and signal lines (pgrepl's logical messages, rows of --signal-table)
 * are counted apart from them. When progress is shown, a last line on stop says how many changes
 * were printed and up to where the slot is confirmed (where the next run resumes).
 *
 * <p>"stderr is a terminal" is asked of stderr itself ({@link Terminal}), not of
 * {@code System.console()}, which is null whenever stdout is redirected: the usual case.
 */
final class Verbose {
    private final StreamOptions settings;
    private final PrintStream err;
    private final boolean terminal;
    private final long progressNanos;
    private long lastProgress = System.nanoTime();
    private long lastConfirmCheck = System.nanoTime();
    private long printed;
    private long printedAtLast;
    /** Signal lines (pgrepl's messages, signal-table rows): not changes, counted apart. */
    private long signals;
    /** Visible width of the progress line drawn last (terminal), to erase it. */
    private int drawnWidth;
    private long confirmed;
    private boolean firstStart = true;
    private boolean progressShown;
    /** Some snapshot table has a publication row filter: the row estimate counts rows it will not copy. */
    volatile boolean snapshotFiltered;
    /** From the up-front slot check: where the slot will resume (0 unknown). */
    long slotConfirmedLsn;

    Verbose(StreamOptions settings, PrintStream err) {
        this.settings = settings;
        this.err = err;
        this.terminal = Terminal.stderr(err);
        this.progressNanos = terminal ? 1_000_000_000L : settings.statusInterval.toNanos();
    }

    /** Event loop: a connection started streaming. */
    synchronized void started(LogicalReplicationStream stream, ReconnectingLogicalStream reconnecting) {
        if (!settings.verbose) {
            firstStart = false;
            return;
        }
        if (firstStart) {
            long at = Lsn.max(settings.startLsn, Lsn.max(slotConfirmedLsn, stream.dedupFloor()));
            err.println("pgrepl: streaming from slot " + settings.slot + " at LSN " + Lsn.format(at));
        } else {
            long at = reconnecting != null ? reconnecting.acknowledgedLsn() : stream.dedupFloor();
            err.println("pgrepl: reconnected at " + Lsn.format(at));
        }
        firstStart = false;
    }

    void printed(String text) {
        for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) printed++;
    }

    void transaction(int changes, int signalLines) {
        printed += changes;
        signals += signalLines;
    }

    /** Whether progress is shown: on a terminal, or with -v. */
    boolean showsProgress() {
        return terminal || settings.verbose;
    }

    /** A snapshot worker's event loop: the initial snapshot's progress, every second and at the end. */
    synchronized void snapshotProgress(SnapshotProgress p) {
        // The estimate is the planner's guess before any row filter: said so rather than shown as a target.
        String expected = p.rowsEstimate() <= 0 ? ""
                : " (about " + p.rowsEstimate() + (snapshotFiltered ? " before row filters)" : " expected)");
        String s = String.format("pgrepl: snapshot %s%d/%d tables, %d rows%s, %.0f rows/s", p.finished() ? "done: " : "",
                p.tablesDone(), p.tablesTotal(), p.rowsDone(), expected, p.rowsPerSecond());
        if (terminal) {
            draw(s);
            if (p.finished()) end();
        } else {
            err.println(s);
        }
    }

    /** Any thread: a line that must not be lost in a redrawn progress line. */
    synchronized void warning(String s) {
        line(s);
    }

    /** Printing thread, several times a second; {@code s} null: not streaming yet (a snapshot runs). */
    synchronized void tick(LogicalReplicationStream s) {
        if (s == null) return;
        long now = System.nanoTime();
        if (settings.verbose && s != null && now - lastConfirmCheck >= settings.statusInterval.toNanos()) {
            lastConfirmCheck = now;
            long flushed = s.flushedLsn();
            if (flushed != 0 && flushed != confirmed) {
                confirmed = flushed;
                line("pgrepl: confirmed up to " + Lsn.format(flushed));
            }
        }
        if ((terminal || settings.verbose) && now - lastProgress >= progressNanos) {
            StreamMetrics m = s.metrics();
            double secs = (now - lastProgress) / 1e9;
            String p = String.format("pgrepl: %d changes, %.0f/s", printed, (printed - printedAtLast) / secs);
            if (signals > 0) p += ", " + Counts.of(signals, "signal", "signals");
            // The lag only once the server has said where its WAL ends and something was confirmed:
            // before that the difference means nothing.
            if (m != null && m.serverWalEnd() != 0 && m.flushedLsn() != 0) {
                p += ", " + ByteSizes.of(m.lagBytes()) + " of WAL not yet confirmed";
            }
            if (terminal) {
                draw(p);
            } else {
                err.println(p);
            }
            lastProgress = now;
            printedAtLast = printed;
        }
    }

    /** Redraws the progress line in place. */
    private void draw(String s) {
        err.print("\r" + s + " ".repeat(Math.max(0, drawnWidth - s.length())));
        drawnWidth = s.length();
        progressShown = true;
    }

    /** A line of its own: the progress line drawn before it is erased first (it is redrawn at the next tick). */
    private void line(String s) {
        clear();
        err.println(s);
    }

    /**
     * Erases the progress line, with whatever the terminal echoed after it (a {@code ^C}), and
     * leaves the cursor at the start of the empty line.
     */
    synchronized void clear() {
        if (!progressShown) return;
        err.print("\r" + " ".repeat(drawnWidth + 4) + "\r");
        err.flush();
        progressShown = false;
        drawnWidth = 0;
    }

    /**
     * The stream has stopped: when progress was shown, a last line with what was printed and the
     * slot's confirmed position ({@code confirmed} 0: nothing confirmed by this run).
     */
    synchronized void stopped(long confirmed) {
        if (!showsProgress()) return;
        long at = confirmed != 0 ? confirmed : slotConfirmedLsn;
        line("pgrepl: stopped after " + Counts.of(printed, "change", "changes")
                + (signals == 0 ? "" : " and " + Counts.of(signals, "signal", "signals"))
                + (at == 0 ? "; nothing confirmed" : "; slot " + settings.slot + " confirmed up to " + Lsn.format(at)));
    }

    /** Keeps the progress line drawn last (the snapshot's "done" line) and moves below it. */
    synchronized void end() {
        if (progressShown) err.println();
        progressShown = false;
        drawnWidth = 0;
    }
}
