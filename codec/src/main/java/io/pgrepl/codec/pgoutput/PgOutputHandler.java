package io.pgrepl.codec.pgoutput;

/**
 * Receives decoded pgoutput messages, one callback per message type; every method defaults to
 * doing nothing. The view passed in is reused for the next message: read or copy what you need
 * before returning.
 */
public interface PgOutputHandler {
    default void onBegin(BeginMessage m) {}

    default void onCommit(CommitMessage m) {}

    default void onOrigin(OriginMessage m) {}

    /** Called after the relation cache was updated. */
    default void onRelation(RelationMessage m) {}

    default void onType(TypeMessage m) {}

    default void onInsert(InsertMessage m) {}

    default void onUpdate(UpdateMessage m) {}

    default void onDelete(DeleteMessage m) {}

    default void onTruncate(TruncateMessage m) {}

    default void onMessage(LogicalMessage m) {}

    default void onStreamStart(StreamStartMessage m) {}

    default void onStreamStop(StreamStopMessage m) {}

    default void onStreamCommit(StreamCommitMessage m) {}

    default void onStreamAbort(StreamAbortMessage m) {}

    default void onBeginPrepare(BeginPrepareMessage m) {}

    default void onPrepare(PrepareMessage m) {}

    default void onCommitPrepared(CommitPreparedMessage m) {}

    default void onRollbackPrepared(RollbackPreparedMessage m) {}

    /** Stream Prepare 'p': same layout as Prepare, {@link PrepareMessage#streamed()} is true. */
    default void onStreamPrepare(PrepareMessage m) {}
}
