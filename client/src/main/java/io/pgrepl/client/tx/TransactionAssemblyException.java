package io.pgrepl.client.tx;

/** The message sequence broke pgoutput's transaction structure, or a spill file failed. */
public final class TransactionAssemblyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An assembly failure without a cause.
     *
     * @param message what broke
     */
    public TransactionAssemblyException(String message) {
        super(message);
    }

    /**
     * An assembly failure, e.g. of spill file I/O.
     *
     * @param message what broke
     * @param cause   the underlying failure
     */
    public TransactionAssemblyException(String message, Throwable cause) {
        super(message, cause);
    }
}
