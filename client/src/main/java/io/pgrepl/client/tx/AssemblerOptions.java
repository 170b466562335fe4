package io.pgrepl.client.tx;

import java.nio.file.Path;
import java.util.Objects;

/**
 * <p>Spilling is synchronous file I/O on the thread that feeds the assembler; in
 * {@code ReactiveReplication.transactions} that is the connection's Netty event loop, so a
 * transaction larger than the budget writes its spill file there, stalling every channel that
 * shares the loop (and this stream's keepalive replies) for as long as the disk takes. Size the
 * budget so that spilling is the exception, and give streams that may see large transactions
 * their own event loop group ({@code ConnectionConfig.Builder.eventLoopGroup} /
 * {@code PgClient.using}) so only they stall.
 *
 * @param preparedDelivery  when two-phase transactions are delivered
 * @param memoryBudgetBytes heap (estimated) that buffered, not yet delivered changes may use across
 *                          all open transactions; beyond it the largest buffers spill to disk
 * @param spillDirectory    where spill files go (owner-only temp files, deleted on commit/abort/close)
 * @param skipThroughLsn    transactions whose end LSN is ≤ this are dropped: the de-duplication a
 *                          resumed stream needs after a server crash (pass your durable position)
 */
public record AssemblerOptions(PreparedDelivery preparedDelivery, long memoryBudgetBytes, Path spillDirectory,
                               long skipThroughLsn) {
    /** The default memory budget, 64 MiB. */
    public static final long DEFAULT_MEMORY_BUDGET = 64L << 20;

    /**
     * Checks the values.
     *
     * @param preparedDelivery  when two-phase transactions are delivered
     * @param memoryBudgetBytes heap (estimated) buffered changes may use before the largest spill; 0 spills everything
     * @param spillDirectory    where spill files go
     * @param skipThroughLsn    transactions whose end LSN is ≤ this are dropped; 0 for none
     * @throws IllegalArgumentException for a negative budget
     */
    public AssemblerOptions {
        Objects.requireNonNull(preparedDelivery, "preparedDelivery");
        Objects.requireNonNull(spillDirectory, "spillDirectory");
        if (memoryBudgetBytes < 0) throw new IllegalArgumentException("memoryBudgetBytes < 0");
    }

    /**
     * AT_PREPARE, 64 MiB, java.io.tmpdir, no de-duplication.
     *
     * @return the defaults
     */
    public static AssemblerOptions defaults() {
        return new AssemblerOptions(PreparedDelivery.AT_PREPARE, DEFAULT_MEMORY_BUDGET,
                Path.of(System.getProperty("java.io.tmpdir")), 0);
    }

    /**
     * The same options with another delivery point for two-phase transactions.
     *
     * @param v AT_PREPARE or AT_COMMIT_PREPARED
     * @return the new options
     */
    public AssemblerOptions withPreparedDelivery(PreparedDelivery v) {
        return new AssemblerOptions(v, memoryBudgetBytes, spillDirectory, skipThroughLsn);
    }

    /**
     * The same options with another memory budget.
     *
     * @param v heap bytes before the largest buffers spill, not negative
     * @return the new options
     */
    public AssemblerOptions withMemoryBudgetBytes(long v) {
        return new AssemblerOptions(preparedDelivery, v, spillDirectory, skipThroughLsn);
    }

    /**
     * The same options with another spill directory.
     *
     * @param v an existing directory
     * @return the new options
     */
    public AssemblerOptions withSpillDirectory(Path v) {
        return new AssemblerOptions(preparedDelivery, memoryBudgetBytes, v, skipThroughLsn);
    }

    /**
     * The same options with another de-duplication position.
     *
     * @param v the durable position: transactions ending at or below it are dropped
     * @return the new options
     */
    public AssemblerOptions withSkipThroughLsn(long v) {
        return new AssemblerOptions(preparedDelivery, memoryBudgetBytes, spillDirectory, v);
    }
}
