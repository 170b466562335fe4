package io.pgrepl.cli;

/** Bad command-line arguments: exit code 2 with the message alone. */
final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
