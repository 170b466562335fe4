package io.pgrepl.cli;

import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns any failure into the one line the CLI prints: the root cause, never a stack trace. */
final class CliErrors {
    private CliErrors() {}

    static String oneLine(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        String msg = t.getMessage();
        String line = msg == null || msg.isBlank() ? t.getClass().getSimpleName() : msg;
        return line.replace('\n', ' ').replace('\r', ' ');
    }

    /**
     * An argument as an error message may show it: anything that looks like a connection string
     * (a URI, or keyword/value text with a password) is replaced, since it may carry a password;
     * the rest is bounded and stripped of control characters.
     */
    static String shown(String arg) {
        if (arg == null) {
            return "(none)";
        }
        if (arg.contains("://")) {
            return "(a connection URI, not shown)";
        }
        if (arg.toLowerCase(Locale.ROOT).contains("password=")) {
            return "(a connection string, not shown)";
        }
        StringBuilder b = new StringBuilder();
        arg.codePoints().limit(64).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return arg.codePointCount(0, arg.length()) > 64 ? b + "..." : b.toString();
    }
}
