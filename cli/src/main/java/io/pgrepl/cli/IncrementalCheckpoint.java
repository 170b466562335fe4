package io.pgrepl.cli;

import io.pgrepl.codec.Lsn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.function.LongConsumer;

/**
 * {@code --snapshot-state FILE}: the incremental snapshot's progress kept across restarts. Each
 * commit the stream delivers is paired (on the event loop) with the engine's state at that moment,
 * which covers only reads handed over before that commit; when the printing thread confirms a
 * commit, everything before it was written, so that state is safe to store with the confirmed LSN.
 * A state older than the output only reads some chunks again; a newer one would lose reads, which
 * this pairing rules out. When a table's snapshot ends, its state is also stored once the lines
 * before it are written, with no commit needed (a quiet database sends none). The file is replaced atomically (temp, fsync, rename, fsync of the
 * directory) and only when the state changed.
 *
 * <p>Format: {@code pgrepl-cli-incremental 1}, {@code slot NAME}, {@code lsn X/X}, then the
 * engine's state (its own lines).
 */
final class IncrementalCheckpoint implements LongConsumer {
    private static final String HEADER = "pgrepl-cli-incremental 1";

    private record Pending(long lsn, String state) {}

    /**
     * A table's snapshot ended: the state then, handed to the printing thread behind that table's
     * last lines, and stored once they are written ({@link #store}). Without it a snapshot that ends
     * on a quiet database (no later commit to pair the state with) would be read again next time.
     */
    final class TableEnd {
        private final String state;

        private TableEnd(String state) {
            this.state = state;
        }

        /** Printing thread: every line handed over before this was written (and fsynced). */
        void store() {
            IncrementalCheckpoint.this.store(this);
        }
    }

    private final LongConsumer acknowledge;
    private final Path file;
    private final String slot;
    /** Commits' states and table ends, in the event loop's order. */
    private final ArrayDeque<Object> pending = new ArrayDeque<>();
    /** The last LSN confirmed (printing thread): what a table end's state is stored with. */
    private volatile long confirmed;
    private String lastQueued;
    private long lastQueuedLsn;
    private String lastWritten;

    IncrementalCheckpoint(LongConsumer acknowledge, Path file, String slot) {
        this.acknowledge = acknowledge;
        this.file = file;
        this.slot = slot;
    }

    /** The stored state if {@code file} exists and names {@code slot}, else null (with why on {@code why}). */
    static String load(Path file, String slot, StringBuilder why) throws IOException {
        if (file == null || !Files.exists(file)) return null;
        String[] parts = Files.readString(file, StandardCharsets.UTF_8).split("\n", 4);
        if (parts.length < 4 || !parts[0].equals(HEADER) || !parts[1].startsWith("slot ") || !parts[2].startsWith("lsn ")) {
            throw new IllegalStateException("--snapshot-state " + file + " is not a pgrepl snapshot state file");
        }
        if (!parts[1].substring(5).equals(slot)) {
            why.append("--snapshot-state ").append(file).append(" is for slot \"").append(parts[1].substring(5))
                    .append("\", not \"").append(slot).append("\"; starting the snapshot afresh");
            return null;
        }
        return parts[3];
    }

    /** Event loop: a commit ending at {@code lsn} is being delivered; {@code state} covers what went before it. */
    void commit(long lsn, String state) {
        // After a reconnect the server resends from the confirmed position: a resent (lower) commit may be confirmed
        // by an item handed over before this state was taken, so only rising positions are paired.
        if (file == null || state.equals(lastQueued) || Long.compareUnsigned(lsn, lastQueuedLsn) <= 0) return;
        lastQueued = state;
        lastQueuedLsn = lsn;
        synchronized (pending) {
            pending.add(new Pending(lsn, state));
        }
    }

    /**
     * Event loop: a table's snapshot ended and its last lines were handed over; {@code state} covers
     * them. Returns what to hand over after them, or null without a file.
     */
    TableEnd tableEnded(String state) {
        if (file == null) return null;
        TableEnd end = new TableEnd(state);
        lastQueued = state; // a commit with this same state adds nothing
        synchronized (pending) {
            pending.add(end);
        }
        return end;
    }

    /**
     * Printing thread: every line handed over before {@code end} was written (and fsynced); stores its
     * state. Commits queued before it carry older states: they no longer need storing (their
     * confirmations go to the server all the same).
     */
    private void store(TableEnd end) {
        synchronized (pending) {
            while (!pending.isEmpty() && pending.pollFirst() != end) {
                // older than the table's end
            }
        }
        store(confirmed, end.state);
    }

    /** Printing thread: {@code lsn} was written (and fsynced); confirms it, then stores the matching state. */
    @Override
    public void accept(long lsn) {
        acknowledge.accept(lsn);
        confirmed = Lsn.max(confirmed, lsn);
        if (file == null) return;
        String state = null;
        synchronized (pending) {
            // Up to a table end's entry at most: that one waits for its own lines (store).
            while (!pending.isEmpty() && pending.peekFirst() instanceof Pending p && Long.compareUnsigned(p.lsn, lsn) <= 0) {
                state = p.state;
                pending.pollFirst();
            }
        }
        store(lsn, state);
    }

    private void store(long lsn, String state) {
        if (state == null || state.equals(lastWritten)) return;
        try {
            write(HEADER + "\nslot " + slot + "\nlsn " + Lsn.format(lsn) + "\n" + state);
            lastWritten = state;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write --snapshot-state " + file + ": " + e.getMessage(), e);
        }
    }

    private void write(String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) c.write(b);
            c.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true); // the rename itself survives a crash
        }
    }
}
