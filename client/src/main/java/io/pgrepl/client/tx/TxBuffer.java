package io.pgrepl.client.tx;

import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Truncate;
import io.pgrepl.codec.pgoutput.record.Update;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The changes of one transaction: in memory until the assembler asks it to spill, then in a
 * private temp file (length-prefixed records, appended in arrival order). Once spilled, every
 * later record goes to the file too, so the file alone holds the order.
 */
final class TxBuffer {
    private final long xid;
    private List<PgOutputRecord> memory = new ArrayList<>();
    private long memoryBytes;
    private Path file;
    private DataOutputStream out;
    private final ByteArrayOutputStream scratch = new ByteArrayOutputStream(256);
    private final DataOutputStream scratchOut = new DataOutputStream(scratch);
    /** Change count per (sub)transaction xid (0 = not streamed), for aborts of spilled subtransactions. */
    private final Map<Long, Integer> countsByXid = new HashMap<>();
    private final Set<Long> abortedSubXids = new HashSet<>();
    private int count;
    private long totalBytes;
    private volatile boolean deleted;
    /** Spill readers not at EOF yet: {@link #delete()} closes them (a partial iteration would leak its descriptor). */
    private final Set<SpillIterator> openReaders = java.util.concurrent.ConcurrentHashMap.newKeySet();

    TxBuffer(long xid) {
        this.xid = xid;
    }

    long xid() {
        return xid;
    }

    long memoryBytes() {
        return memoryBytes;
    }

    long totalBytes() {
        return totalBytes;
    }

    int count() {
        return count;
    }

    boolean spilled() {
        return file != null;
    }

    Path file() {
        return file;
    }

    /** Appends; returns the bytes added to memory (0 when spilled). */
    long append(PgOutputRecord r) {
        long size = RecordSerde.estimateSize(r);
        count++;
        totalBytes += size;
        countsByXid.merge(changeXid(r), 1, Integer::sum);
        if (file != null) {
            writeRecord(r);
            return 0;
        }
        memory.add(r);
        memoryBytes += size;
        return size;
    }

    /** Moves the in-memory records to a new temp file in {@code dir}; returns the memory freed. */
    long spill(Path dir) {
        if (file != null) return 0;
        try {
            Files.createDirectories(dir);
            // createTempFile gives owner-only permissions on POSIX: row data stays private.
            file = Files.createTempFile(dir, "pgrepl-tx-" + Long.toUnsignedString(xid) + "-", ".spill");
            out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
        } catch (IOException e) {
            throw new TransactionAssemblyException("cannot create spill file in " + dir, e);
        }
        for (PgOutputRecord r : memory) writeRecord(r);
        long freed = memoryBytes;
        memory = null;
        memoryBytes = 0;
        return freed;
    }

    private void writeRecord(PgOutputRecord r) {
        try {
            scratch.reset();
            RecordSerde.write(r, scratchOut);
            out.writeInt(scratch.size());
            scratch.writeTo(out);
        } catch (IOException e) {
            throw new TransactionAssemblyException("cannot write spill file " + file, e);
        }
    }

    /** Drops the changes of an aborted subtransaction; returns the memory freed. */
    long abortSubTransaction(long subXid) {
        Integer n = countsByXid.remove(subXid);
        if (n == null) return 0;
        count -= n;
        if (file != null) {
            abortedSubXids.add(subXid);
            return 0;
        }
        long freed = 0;
        for (Iterator<PgOutputRecord> it = memory.iterator(); it.hasNext(); ) {
            PgOutputRecord r = it.next();
            if (isChange(r) && changeXid(r) == subXid) {
                freed += RecordSerde.estimateSize(r);
                it.remove();
            }
        }
        memoryBytes -= freed;
        totalBytes -= freed;
        return freed;
    }

    /** Ends writing; the buffer becomes read-only. */
    void seal() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                throw new TransactionAssemblyException("cannot write spill file " + file, e);
            }
        }
    }

    /** Iterates the records in arrival order, restoring them from the spill file if there is one. */
    Iterator<PgOutputRecord> iterator() {
        if (deleted) throw new IllegalStateException("transaction closed: its changes are gone");
        if (file == null) return List.copyOf(memory).iterator();
        SpillIterator it = new SpillIterator();
        openReaders.add(it);
        if (deleted) { // delete() ran while this one was opening
            it.close();
            throw new IllegalStateException("transaction closed: its changes are gone");
        }
        return it;
    }

    /** Spill readers opened and not yet closed (at EOF, on error or by {@link #delete()}). */
    int openReaders() {
        return openReaders.size();
    }

    /** Deletes the spill file (idempotent). */
    void delete() {
        deleted = true;
        memory = null;
        for (SpillIterator it : openReaders) it.close();
        if (file != null) {
            try {
                if (out != null) out.close();
            } catch (IOException ignored) {
                // deleting anyway
            }
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temp file we could not delete is left to the OS temp cleaner
            }
        }
    }

    private static boolean isChange(PgOutputRecord r) {
        return r instanceof Insert || r instanceof Update || r instanceof Delete || r instanceof Truncate
                || r instanceof Message;
    }

    /** The (sub)transaction xid a change carries; Relation/Type/Origin count as the top level (never discarded). */
    private long changeXid(PgOutputRecord r) {
        if (r instanceof Insert i) return i.xid();
        if (r instanceof Update u) return u.xid();
        if (r instanceof Delete d) return d.xid();
        if (r instanceof Truncate t) return t.xid();
        if (r instanceof Message m) return m.xid();
        return xid;
    }

    private final class SpillIterator implements Iterator<PgOutputRecord>, java.io.Closeable {
        private final DataInputStream in;
        private PgOutputRecord next;
        private boolean done;

        SpillIterator() {
            try {
                InputStream raw = Files.newInputStream(file);
                in = new DataInputStream(new BufferedInputStream(raw, 1 << 16));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read spill file " + file, e);
            }
        }

        @Override
        public boolean hasNext() {
            // deleted (closed by delete()) must not read as a normal end of the transaction
            if (next == null && deleted) throw new IllegalStateException("transaction closed: its changes are gone");
            while (next == null && !done) {
                try {
                    int len;
                    try {
                        len = in.readInt();
                    } catch (EOFException eof) {
                        close();
                        break;
                    }
                    byte[] b = new byte[len];
                    in.readFully(b);
                    PgOutputRecord r = RecordSerde.read(new DataInputStream(new java.io.ByteArrayInputStream(b)));
                    if (!(isChange(r) && abortedSubXids.contains(changeXid(r)))) next = r;
                } catch (IOException e) {
                    close();
                    if (deleted) throw new IllegalStateException("transaction closed: its changes are gone");
                    throw new UncheckedIOException("cannot read spill file " + file, e);
                }
            }
            return next != null;
        }

        /** Releases the file; idempotent, also called at EOF and by {@link TxBuffer#delete()}. */
        @Override
        public void close() {
            done = true;
            openReaders.remove(this);
            try {
                in.close();
            } catch (IOException ignored) {
                // nothing more to read either way
            }
        }

        @Override
        public PgOutputRecord next() {
            if (!hasNext()) throw new NoSuchElementException();
            PgOutputRecord r = next;
            next = null;
            return r;
        }
    }
}
