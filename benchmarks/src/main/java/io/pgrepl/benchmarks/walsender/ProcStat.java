package io.pgrepl.benchmarks.walsender;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time from {@code /proc/<pid>/stat} (proc(5)): {@code utime} and {@code stime}, the
 * 14th and 15th fields, in clock ticks. They are the whole thread group's, and a PostgreSQL backend has
 * one thread, so for a walsender they are its own CPU time however loaded the machine is.
 *
 * @param pid the process read
 * @param userTicks {@code utime}: time in user mode (decoding, the output plugin)
 * @param systemTicks {@code stime}: time in the kernel on its behalf (reading WAL, writing the socket)
 */
record ProcStat(long pid, long userTicks, long systemTicks) {

    /** {@code sysconf(_SC_CLK_TCK)}, USER_HZ: 100 on x86 and arm Linux; the harness checks {@code getconf CLK_TCK}. */
    static final int TICKS_PER_SECOND = 100;

    long ticks() {
        return userTicks + systemTicks;
    }

    /** CPU time from {@code earlier} to this sample, in microseconds. */
    long microsSince(ProcStat earlier) {
        if (earlier.pid != pid) throw new IllegalArgumentException("samples of two processes: " + earlier.pid + " and " + pid);
        return (ticks() - earlier.ticks()) * (1_000_000L / TICKS_PER_SECOND);
    }

    static ProcStat read(long pid) throws IOException {
        return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    }

    static ProcStat self() throws IOException {
        return read(ProcessHandle.current().pid());
    }

    /**
     * One {@code stat} line: {@code pid (comm) state ppid ... utime stime ...}. The command name may hold
     * spaces and parentheses (a process can rename itself), so the fields are counted from the last
     * {@code ')'}.
     */
    static ProcStat parse(String line) {
        int open = line.indexOf(" (");
        int close = line.lastIndexOf(')');
        if (open <= 0 || close < open) throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + line);
        String[] f = line.substring(close + 1).strip().split(" +");
        // f[0] is field 3 (state), so field n is f[n - 3].
        if (f.length < 13) throw new IllegalArgumentException("a /proc/<pid>/stat line of " + (f.length + 2) + " fields: " + line);
        return new ProcStat(Long.parseLong(line.substring(0, open)), Long.parseLong(f[11]), Long.parseLong(f[12]));
    }
}
