package io.pgrepl.cli;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns any failure into what the CLI prints: the root cause, never a stack trace. */
final class CliErrors {
    private CliErrors() {}

    static String oneLine(Throwable t) {
        t = unwrap(t);
        String msg = t.getMessage();
        if (t.getCause() instanceof OAuthTokens.Unavailable u) msg = msg + ": " + u.getMessage(); // our words, no token
        String line = msg == null || msg.isBlank() ? withoutMessage(t) : msg;
        if (isBug(t)) {
            // A bare "plugin" (a null check's message) means nothing to a user: name it as what it is.
            line = "internal error (" + t.getClass().getSimpleName() + (msg == null || msg.isBlank() ? "" : ": " + msg)
                    + "); please report it";
        }
        // A sentence on its own line (libpq's hint after a refused connection) keeps its full stop.
        return line.replaceAll("(\\w)\n(?=[A-Z])", "$1. ").replace('\n', ' ').replace('\r', ' ');
    }

    /** Words for the JDK's exceptions that come without a message (a bare class name says little). */
    private static String withoutMessage(Throwable t) {
        if (t instanceof java.util.concurrent.TimeoutException) return "timed out waiting for the server";
        if (t instanceof java.nio.channels.ClosedChannelException) return "the connection was closed";
        if (t instanceof java.io.EOFException) return "the connection ended unexpectedly";
        return t.getClass().getSimpleName();
    }

    /** The JDK's exceptions for a broken precondition: their message is a variable name or an index, never advice. */
    private static boolean isBug(Throwable t) {
        return t instanceof NullPointerException || t instanceof IndexOutOfBoundsException || t instanceof ClassCastException
                || t instanceof ArithmeticException;
    }

    /**
     * The one-line message, then the server's DETAIL and HINT on their own lines as psql prints
     * them (a role without REPLICATION learns why from the DETAIL).
     */
    static String describe(Throwable t) {
        Throwable root = unwrap(t);
        if (root instanceof PgClientException && root.getMessage() != null && root.getMessage().indexOf('\n') > 0) {
            // The client's own lines (a connect failure and libpq's hint, one line per server of a
            // multi-host list) read as psql prints them.
            return root.getMessage().replace('\r', ' ');
        }
        StringBuilder b = new StringBuilder(oneLine(t));
        PgException pg = serverError(t);
        if (pg != null) {
            if (pg.detail() != null && !pg.detail().isBlank()) b.append("\nDETAIL:  ").append(pg.detail());
            if (pg.hint() != null && !pg.hint().isBlank()) b.append("\nHINT:  ").append(pg.hint());
        }
        return b.toString();
    }

    /** The server error anywhere in the cause chain, or null. */
    static PgException serverError(Throwable t) {
        for (int depth = 0; t != null && depth < 10; depth++, t = t.getCause()) {
            if (t instanceof PgException pg) return pg;
        }
        return null;
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
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
