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
 * --snapshot the snapshot's own progress takes the progress line's place (every second).
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
    private long confirmed;
    private boolean firstStart = true;
    private boolean progressShown;
    /** From the up-front slot check: where the slot will resume (0 unknown). */
    long slotConfirmedLsn;

    Verbose(StreamOptions settings, PrintStream err) {
        this.settings = settings;
        this.err = err;
        this.terminal = System.console() != null && err == System.err;
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

    void transaction(int changes) {
        printed += changes;
    }

    /** Whether progress is shown: on a terminal, or with -v. */
    boolean showsProgress() {
        return terminal || settings.verbose;
    }

    /** A snapshot worker's event loop: the initial snapshot's progress, every second and at the end. */
    synchronized void snapshotProgress(SnapshotProgress p) {
        String s = String.format("pgrepl: snapshot %s%d/%d tables, %d rows%s, %.0f rows/s", p.finished() ? "done: " : "",
                p.tablesDone(), p.tablesTotal(), p.rowsDone(), p.rowsEstimate() > 0 ? " (about " + p.rowsEstimate() + " expected)" : "",
                p.rowsPerSecond());
        if (terminal) {
            err.print("\r" + s + "   ");
            progressShown = true;
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
            String p = String.format("pgrepl: %d changes, %.0f/s, lag %s bytes", printed, (printed - printedAtLast) / secs,
                    m == null ? "?" : Long.toString(m.lagBytes()));
            if (terminal) {
                err.print("\r" + p + "   ");
                progressShown = true;
            } else {
                err.println(p);
            }
            lastProgress = now;
            printedAtLast = printed;
        }
    }

    private void line(String s) {
        if (progressShown) {
            err.println();
            progressShown = false;
        }
        err.println(s);
    }

    synchronized void end() {
        if (progressShown) err.println();
        progressShown = false;
    }
}
