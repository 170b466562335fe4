package io.pgrepl.kafka.connect.signals;

import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.MalformedSignalException;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's file signal channel: every signal.poll.interval.ms the task reads signal.file (on the
 * worker's file system), empties it, and hands each non-blank line to the engine, a signal as the
 * kafka channel's record values carry one ({@code {"id": "...", "type": "execute-snapshot", "data": {...}}}).
 * A malformed line is logged and skipped. As in Debezium, the file is the only record of a signal:
 * a line read and emptied just before the task died is not acted on, and lines written between the
 * read and the emptying are lost; write a file while the task is between reads, or use the source
 * or kafka channel, which keep their position.
 */
public final class FileSignals implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FileSignals.class);

    private final IncrementalSnapshots engine;
    private final Path file;
    private final long intervalMs;
    private final String slot;
    private final Thread thread;
    private volatile boolean closed;

    private FileSignals(IncrementalSnapshots engine, Path file, long intervalMs, String slot) {
        this.engine = engine;
        this.file = file;
        this.intervalMs = intervalMs;
        this.slot = slot;
        this.thread = new Thread(this::run, "pgrepl-file-signals-" + slot);
        thread.setDaemon(true);
    }

    /** Starts reading {@code file} every {@code intervalMs}. */
    public static FileSignals start(IncrementalSnapshots engine, Path file, long intervalMs, String slot) {
        FileSignals s = new FileSignals(engine, file, intervalMs, slot);
        s.thread.start();
        log.info("file signal channel: reading {} every {} ms", file.toAbsolutePath(), intervalMs);
        return s;
    }

    private void run() {
        while (!closed) {
            read();
            try {
                Thread.sleep(intervalMs);
            } catch (InterruptedException stopping) {
                return;
            }
        }
    }

    private void read() {
        List<String> lines;
        try {
            if (!Files.isRegularFile(file)) return;
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.isEmpty()) return;
            Files.write(file, new byte[0]);
        } catch (IOException | RuntimeException e) {
            log.warn("slot {}: reading signal file {} failed: {}; trying again in {} ms", slot, file.toAbsolutePath(), e.toString(), intervalMs);
            return;
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) continue;
            String where = "file signal " + file + " line " + (i + 1);
            try {
                engine.signal(SnapshotSignals.parseMessage(line), where);
            } catch (MalformedSignalException e) {
                log.error("slot {}: malformed snapshot signal ({}): {}; ignored, the channel goes on", slot, where, e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
