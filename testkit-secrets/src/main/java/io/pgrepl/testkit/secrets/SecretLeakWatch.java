package io.pgrepl.testkit.secrets;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Watches everything a test JVM prints for the {@linkplain TestSecrets test passwords}: standard
 * output and error (where slf4j-simple logs, stack traces included) from the start of the JUnit
 * session, the throwable of every failed test or container, and the server logs of the test kit's
 * servers just before they are deleted ({@link #scanFile}). {@link SecretLeakListener} installs it
 * for every module that has the test kit on its test classpath; a test ordered last
 * ({@link RunLast}) asserts that {@link #leaks()} is empty. No JUnit types here: the test kit's
 * servers call {@link #scanFile} also where JUnit is absent (demo, benchmarks).
 */
public final class SecretLeakWatch {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    /** Tees System.out and System.err through the scanner (idempotent). */
    public static synchronized void install() {
        if (installed) return;
        installed = true;
        System.setOut(new PrintStream(new Tee(System.out, "stdout"), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(System.err, "stderr"), true, StandardCharsets.UTF_8));
    }

    public static boolean installed() {
        return installed;
    }

    private SecretLeakWatch() {}

    /** Scans a throwable's whole printed form: messages and causes. */
    public static void scan(String where, Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        scan(where, w.toString());
    }

    /** Scans a file (a server log before its directory is deleted); unreadable files are skipped. */
    public static void scanFile(Path file) {
        try {
            if (Files.isRegularFile(file)) scan(file.toString(), Files.readString(file, StandardCharsets.ISO_8859_1));
        } catch (IOException ignored) {
            // nothing to scan
        }
    }

    /** Records a leak for each test password found in {@code text}. */
    public static void scan(String where, String text) {
        for (String secret : TestSecrets.all()) {
            int i = text.indexOf(secret);
            if (i >= 0) {
                // The report names the place and shows the context with the password masked.
                String context = text.substring(Math.max(0, i - 80), Math.min(text.length(), i + secret.length() + 40))
                        .replace(secret, "<" + secret.length() + "-char test password>");
                LEAKS.add(where + ": ..." + context.replace('\n', ' ') + "...");
            }
        }
    }

    /** Every leak found so far in this JVM. */
    public static List<String> leaks() {
        return List.copyOf(LEAKS);
    }

    /** Forgets leaks found so far (for the watch's own self-test only). */
    public static void forget(List<String> leaks) {
        LEAKS.removeAll(leaks);
    }

    /** Passes bytes through and scans them line by line. */
    private static final class Tee extends OutputStream {
        private final PrintStream target;
        private final String name;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

        Tee(PrintStream target, String name) {
            this.target = target;
            this.name = name;
        }

        @Override
        public synchronized void write(int b) {
            target.write(b);
            if (b == '\n') flushLine();
            else line.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            target.write(b, off, len);
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    line.write(b, start, i - start);
                    flushLine();
                    start = i + 1;
                }
            }
            line.write(b, start, off + len - start);
            if (line.size() > (1 << 20)) flushLine(); // a runaway line is scanned in pieces
        }

        private void flushLine() {
            scan(name, line.toString(StandardCharsets.UTF_8));
            line.reset();
        }

        @Override
        public void flush() {
            target.flush();
        }
    }
}
