package io.pgrepl.cli;

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
        return new Output(out, null, false);
    }

    /** {@code fsync}: acknowledge only after {@link #fsync()} (pg_recvlogical's -F other than 0). */
    static Output file(Path path, boolean fsync) throws IOException {
        FileOutputStream f = new FileOutputStream(path.toFile(), true);
        return new Output(f, f.getChannel(), fsync);
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
