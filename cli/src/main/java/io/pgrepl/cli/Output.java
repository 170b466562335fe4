package io.pgrepl.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** Where {@code pgrepl stream} writes: stdout, or a file (appended to) that can be fsynced. */
final class Output implements AutoCloseable {
    private final OutputStream stream;
    private final FileChannel channel;
    private final boolean fsyncs;

    private Output(OutputStream stream, FileChannel channel, boolean fsyncs) {
        this.stream = stream;
        this.channel = channel;
        this.fsyncs = fsyncs;
    }

    static Output stdout(PrintStream out) {
        if (out == System.out && Main.ownsProcess) {
            // The process's own stdout, not through System.out: a PrintStream swallows the IOException
            // that tells a reader gone away (head, a closed pager) from a failing disk.
            out.flush();
            return new Output(new PipeEnd(new FileOutputStream(FileDescriptor.out)), null, false);
        }
        return new Output(out, null, false);
    }

    /**
     * The reader of stdout went away (EPIPE, as when piped into {@code head}): the end of the
     * output, as for pg_recvlogical and other Unix tools, not a failure. What was written before
     * stays acknowledged; what this write held is not.
     */
    static final class Closed extends IOException {
        private static final long serialVersionUID = 1L;

        Closed(IOException cause) {
            super("stdout was closed by its reader", cause);
        }
    }

    /** stdout with a closed pipe's error turned into {@link Closed}; the JVM ignores SIGPIPE, so write sees EPIPE. */
    private static final class PipeEnd extends OutputStream {
        private final OutputStream out;

        PipeEnd(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw translate(e);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw translate(e);
            }
        }

        private static IOException translate(IOException e) {
            String m = e.getMessage();
            return m != null && m.contains("Broken pipe") ? new Closed(e) : new IOException("cannot write to stdout: " + m, e);
        }
    }

    /**
     * {@code fsync}: acknowledge only after {@link #fsync()} (pg_recvlogical's -F other than 0). A file that
     * ends in a partial line (an earlier run was killed between two writes of one transaction) is cut back to
     * its last newline first: that line was never acknowledged, so this run prints it again, and appending
     * after it would leave a line no JSON reader can parse. Returns the bytes cut through {@code cut}.
     */
    static Output file(Path path, boolean fsync, java.util.function.LongConsumer cut) throws IOException {
        if (java.nio.file.Files.exists(path)) {
            try (FileChannel c = FileChannel.open(path, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                long dropped = cutPartialLine(c);
                if (dropped > 0) cut.accept(dropped);
            }
        }
        FileOutputStream f = new FileOutputStream(path.toFile(), true);
        return new Output(f, f.getChannel(), fsync);
    }

    private static long cutPartialLine(FileChannel c) throws IOException {
        long size = c.size();
        long end = size;
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8192);
        while (end > 0) {
            int n = (int) Math.min(b.capacity(), end);
            b.clear().limit(n);
            long at = end - n;
            while (b.hasRemaining()) {
                if (c.read(b, at + b.position()) < 0) throw new IOException("the file shrank while being read");
            }
            for (int i = n - 1; i >= 0; i--) {
                if (b.get(i) == '\n') {
                    long keep = at + i + 1;
                    if (keep < size) {
                        c.truncate(keep);
                        c.force(false);
                    }
                    return size - keep;
                }
            }
            end = at;
        }
        if (size > 0) {
            c.truncate(0);
            c.force(false);
        }
        return size;
    }

    OutputStream stream() {
        return stream;
    }

    /** True when acknowledgements wait for {@link #fsync()}. */
    boolean fsyncs() {
        return fsyncs;
    }

    void flush() throws IOException {
        stream.flush();
        if (stream instanceof PrintStream p && p.checkError()) throw new IOException("cannot write to stdout");
    }

    void fsync() throws IOException {
        flush();
        if (channel != null) channel.force(false);
    }

    @Override
    public void close() throws IOException {
        if (channel != null) stream.close();
        else stream.flush();
    }
}
