package io.pgrepl.codec.pgoutput;

/**
 * Receives decoded pgoutput messages, one callback per message type; every method defaults to
 * doing nothing. The view passed in is reused for the next message: read or copy what you need
 * before returning.
 */
public interface PgOutputHandler {
    /**
     * Begin 'B': a transaction's changes follow, up to its Commit.
     *
     * @param m the view; valid only during this call
     */
    default void onBegin(BeginMessage m) {}

    /**
     * Commit 'C': the transaction since the last Begin committed.
     *
     * @param m the view; valid only during this call
     */
    default void onCommit(CommitMessage m) {}

    /**
     * Origin 'O': the transaction was replayed from a replication origin, e.g. by a subscription; sent after Begin.
     *
     * @param m the view; valid only during this call
     */
    default void onOrigin(OriginMessage m) {}

    /**
     * Called after the relation cache was updated.
     *
     * @param m the view; valid only during this call
     */
    default void onRelation(RelationMessage m) {}

    /**
     * Type 'Y': a non-built-in type used by a following Relation.
     *
     * @param m the view; valid only during this call
     */
    default void onType(TypeMessage m) {}

    /**
     * Insert 'I': a new row.
     *
     * @param m the view; valid only during this call
     */
    default void onInsert(InsertMessage m) {}

    /**
     * Update 'U': a changed row, with the old key or row when the replica identity sends one.
     *
     * @param m the view; valid only during this call
     */
    default void onUpdate(UpdateMessage m) {}

    /**
     * Delete 'D': a removed row, with its old key or row.
     *
     * @param m the view; valid only during this call
     */
    default void onDelete(DeleteMessage m) {}

    /**
     * Truncate 'T': one TRUNCATE over one or more relations.
     *
     * @param m the view; valid only during this call
     */
    default void onTruncate(TruncateMessage m) {}

    /**
     * Message 'M': a pg_logical_emit_message call (needs the {@code messages} option).
     *
     * @param m the view; valid only during this call
     */
    default void onMessage(LogicalMessage m) {}

    /**
     * Stream Start 'S': changes of an in-progress transaction follow, each prefixed with its xid.
     *
     * @param m the view; valid only during this call
     */
    default void onStreamStart(StreamStartMessage m) {}

    /**
     * Stream Stop 'E': the end of the current stream block.
     *
     * @param m the view; valid only during this call
     */
    default void onStreamStop(StreamStopMessage m) {}

    /**
     * Stream Commit 'c': a streamed transaction committed; apply its chunks.
     *
     * @param m the view; valid only during this call
     */
    default void onStreamCommit(StreamCommitMessage m) {}

    /**
     * Stream Abort 'A': a streamed transaction or subtransaction aborted; drop its chunks.
     *
     * @param m the view; valid only during this call
     */
    default void onStreamAbort(StreamAbortMessage m) {}

    /**
     * Begin Prepare 'b': a two-phase transaction's changes follow, up to its Prepare.
     *
     * @param m the view; valid only during this call
     */
    default void onBeginPrepare(BeginPrepareMessage m) {}

    /**
     * Prepare 'P': the transaction since Begin Prepare was prepared (PREPARE TRANSACTION).
     *
     * @param m the view; valid only during this call
     */
    default void onPrepare(PrepareMessage m) {}

    /**
     * Commit Prepared 'K': a prepared transaction committed (COMMIT PREPARED).
     *
     * @param m the view; valid only during this call
     */
    default void onCommitPrepared(CommitPreparedMessage m) {}

    /**
     * Rollback Prepared 'r': a prepared transaction rolled back (ROLLBACK PREPARED).
     *
     * @param m the view; valid only during this call
     */
    default void onRollbackPrepared(RollbackPreparedMessage m) {}

    /**
     * Stream Prepare 'p': same layout as Prepare, {@link PrepareMessage#streamed()} is true.
     *
     * @param m the view; valid only during this call
     */
    default void onStreamPrepare(PrepareMessage m) {}
}
