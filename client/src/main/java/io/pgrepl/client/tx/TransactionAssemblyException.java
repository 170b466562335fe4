package io.pgrepl.client.tx;

/** The message sequence broke pgoutput's transaction structure, or a spill file failed. */
public final class TransactionAssemblyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TransactionAssemblyException(String message) {
        super(message);
    }

    public TransactionAssemblyException(String message, Throwable cause) {
        super(message, cause);
    }
}
