package io.pgrepl.client.stream;

import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.codec.pgoutput.PgOutputHandler;
import io.pgrepl.codec.replication.PrimaryKeepalive;
import io.pgrepl.codec.replication.XLogData;

/**
 * The zero-copy face of a logical stream: every callback runs on the connection's event loop,
 * with reusable views over the receive buffer that are valid only during the call (copy what you
 * keep, e.g. with {@code PgOutputRecords}). Must not block: a slow consumer should
 * {@link LogicalReplicationStream#pauseReading()} instead, keepalives and status updates go on.
 *
 * <p>Order per XLogData: {@link #onXLogData} (header: walStart, walEnd, sendTime), then exactly one
 * {@link PgOutputHandler} callback. Relation/Type are delivered even for transactions skipped as
 * duplicates after a resume (the decoder caches them either way). An exception thrown from any
 * callback stops the stream, which then fails with {@link ReplicationHandlerException}.
 */
public interface LogicalStreamHandler extends PgOutputHandler {
    /**
     * The stream is in copy mode; called once before any message.
     *
     * @param stream the stream, to acknowledge, pause or stop it
     */
    default void onStarted(LogicalReplicationStream stream) {}

    /**
     * Header of the XLogData whose pgoutput message is delivered next. walStart is 0 for Relation/Type.
     *
     * @param header the header, a reused view valid only during the call
     */
    default void onXLogData(XLogData header) {}

    /**
     * A primary keepalive (answered already if it asked for a reply).
     *
     * @param keepalive the message, valid only during the call
     */
    default void onKeepalive(PrimaryKeepalive keepalive) {}

    /**
     * A table's shape changed, was seen for the first time on this stream, or (with DDL capture)
     * the table was created or dropped. Called just before the callback of the message that told
     * it: {@link #onRelation} for a Relation, {@link #onMessage} for a DDL capture message; so
     * before the first row of the new shape, in its transaction. A Relation that repeats the shape
     * last delivered for the table (pgoutput sends them again on every connection) calls nothing.
     * The comparison runs on Relation and DDL capture messages only, never on row changes.
     *
     * @param change the change; immutable, may be kept
     */
    default void onSchemaChange(SchemaChange change) {}
}
