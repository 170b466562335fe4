package io.pgrepl.cli;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The terminal under {@code pgrepl top}: keys one at a time without echo, the alternate screen, the
 * size, and everything put back on exit (also on Ctrl-C, through a shutdown hook). Uses {@code stty}
 * on {@code /dev/tty} rather than a terminal library: three settings and a size do not justify a
 * dependency. cbreak ({@code -icanon -echo}) rather than raw: Ctrl-C still raises SIGINT, so the JVM
 * exits through its shutdown hooks and the terminal is restored even if the key loop is stuck.
 */
final class TopTerminal implements AutoCloseable {
    private static final File TTY = new File("/dev/tty");

    private final PrintStream out;
    private final String saved;
    private final BlockingQueue<Integer> keys = new LinkedBlockingQueue<>();
    private final Thread restoreHook;
    private volatile boolean restored;
    private volatile int[] size;

    private TopTerminal(PrintStream out, String saved) {
        this.out = out;
        this.saved = saved;
        this.restoreHook = new Thread(this::restore, "pgrepl-top-restore");
    }

    /**
     * Takes the terminal over; null when there is no usable terminal (no /dev/tty, stty failing).
     *
     * @param out the screen (stdout, a terminal)
     */
    static TopTerminal open(PrintStream out) {
        if (!TTY.canRead()) return null;
        String saved = stty("-g");
        if (saved == null || stty("-icanon", "-echo", "min", "1") == null) return null;
        TopTerminal t = new TopTerminal(out, saved.trim());
        Runtime.getRuntime().addShutdownHook(t.restoreHook);
        t.size = readSize();
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), s -> t.size = readSize());
        } catch (IllegalArgumentException unsupported) {
            // no SIGWINCH on this platform: the size read at start stays
        }
        out.print("\033[?1049h\033[?25l"); // alternate screen, cursor hidden
        out.flush();
        Thread reader = new Thread(() -> t.readKeys(), "pgrepl-top-keys");
        reader.setDaemon(true);
        reader.start();
        return t;
    }

    /** Whether colours may be used: a terminal that is not dumb, and NO_COLOR unset or empty. */
    static boolean colourAllowed() {
        String term = System.getenv("TERM");
        String noColor = System.getenv("NO_COLOR");
        return term != null && !term.isEmpty() && !term.equals("dumb") && (noColor == null || noColor.isEmpty());
    }

    /** Whether the locale says UTF-8 (block characters), as the C library would read it. */
    static boolean utf8Locale() {
        for (String v : new String[] {System.getenv("LC_ALL"), System.getenv("LC_CTYPE"), System.getenv("LANG")}) {
            if (v != null && !v.isEmpty()) return v.toUpperCase(java.util.Locale.ROOT).replace("-", "").contains("UTF8");
        }
        return false;
    }

    /** {@return columns and rows} */
    int[] size() {
        return size;
    }

    /**
     * Waits up to {@code millis} for a key.
     *
     * @return the key's byte, or -1 on timeout, -2 when the terminal closed
     */
    int nextKey(long millis) throws InterruptedException {
        Integer k = keys.poll(millis, TimeUnit.MILLISECONDS);
        return k == null ? -1 : k;
    }

    /** Draws a frame: home, each line cleared to its end, the rest of the screen cleared. */
    void draw(List<String> lines) {
        StringBuilder sb = new StringBuilder("\033[H");
        for (String l : lines) sb.append(l).append("\033[K\n");
        sb.append("\033[J");
        out.print(sb);
        out.flush();
    }

    @Override
    public void close() {
        restore();
        try {
            Runtime.getRuntime().removeShutdownHook(restoreHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway
        }
    }

    private synchronized void restore() {
        if (restored) return;
        restored = true;
        out.print("\033[?25h\033[?1049l");
        out.flush();
        stty(saved);
    }

    private void readKeys() {
        try (InputStream in = new FileInputStream(TTY)) {
            int c;
            while ((c = in.read()) >= 0) keys.add(c);
        } catch (IOException e) {
            // the terminal went away
        }
        keys.add(-2);
    }

    private static int[] readSize() {
        String s = stty("size");
        if (s != null) {
            String[] p = s.trim().split("\\s+");
            if (p.length == 2) {
                try {
                    int rows = Integer.parseInt(p[0]);
                    int cols = Integer.parseInt(p[1]);
                    if (rows > 0 && cols > 0) return new int[] {cols, rows};
                } catch (NumberFormatException ignored) {
                    // fall through to the default
                }
            }
        }
        return new int[] {80, 24};
    }

    /** Runs {@code stty args} on /dev/tty; its output, or null if it failed. */
    private static String stty(String... args) {
        try {
            String[] cmd = new String[args.length + 1];
            cmd[0] = "stty";
            System.arraycopy(args, 0, cmd, 1, args.length);
            Process p = new ProcessBuilder(cmd).redirectInput(TTY).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0 ? output : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
