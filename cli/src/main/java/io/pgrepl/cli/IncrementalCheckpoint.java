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
 * this pairing rules out. The file is replaced atomically (temp, fsync, rename, fsync of the
 * directory) and only when the state changed.
 *
 * <p>Format: {@code pgrepl-cli-incremental 1}, {@code slot NAME}, {@code lsn X/X}, then the
 * engine's state (its own lines).
 */
final class IncrementalCheckpoint implements LongConsumer {
    private static final String HEADER = "pgrepl-cli-incremental 1";

    private record Pending(long lsn, String state) {}

    private final LongConsumer acknowledge;
    private final Path file;
    private final String slot;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
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

    /** Printing thread: {@code lsn} was written (and fsynced); confirms it, then stores the matching state. */
    @Override
    public void accept(long lsn) {
        acknowledge.accept(lsn);
        if (file == null) return;
        String state = null;
        synchronized (pending) {
            while (!pending.isEmpty() && Long.compareUnsigned(pending.peekFirst().lsn, lsn) <= 0) state = pending.pollFirst().state;
        }
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
