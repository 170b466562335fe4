package io.pgrepl.cli;

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
}
