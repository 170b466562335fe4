package io.pgrepl.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether stdout or stderr is a terminal, each on its own. Java 17 has no isatty():
 * {@code System.console()} is non-null only when stdin and stdout both are terminals, so it says
 * nothing about stderr, and nothing useful when stdout is redirected (the usual case for
 * {@code pgrepl stream > file}). On Linux the descriptor's {@code /proc/self/fd} link names its
 * device, which for a terminal is {@code /dev/pts/N}, {@code /dev/ttyN} or {@code /dev/console}:
 * the same answer as {@code test -t N}. Elsewhere (no /proc) the answer is "not a terminal", the
 * safe side: progress is then shown only with -v and slot list prints JSON.
 */
final class Terminal {
    private Terminal() {}

    /** The process's own stdout, and a terminal. In-process callers (tests) pass other streams: never. */
    static boolean stdout(PrintStream out) {
        return out == System.out && Main.ownsProcess && isTerminal(1);
    }

    /** The process's own stderr, and a terminal. */
    static boolean stderr(PrintStream err) {
        return err == System.err && Main.ownsProcess && isTerminal(2);
    }

    static boolean isTerminal(int fd) {
        try {
            return isTerminalDevice(Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    static boolean isTerminalDevice(String path) {
        return path.startsWith("/dev/pts/") || path.startsWith("/dev/tty") || path.equals("/dev/console");
    }
}
