package io.pgrepl.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the {@code pgrepl} command in-process for tests of other packages ({@code Main.run} is package-private). */
public final class CliBridge {
    private CliBridge() {}

    /** What one command returned and printed. */
    public record Result(int rc, String out, String err) {
        @Override
        public String toString() {
            return "rc " + rc + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    public static Result run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = Main.run(args, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Result(rc, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }
}
