package io.pgrepl.client.stream;

import io.netty.buffer.ByteBuf;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import io.pgrepl.client.internal.Exchange;
import io.pgrepl.client.internal.ExchangeContext;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.ErrorFields;

/**
 * What the connection's exchange queue sees of a replication stream: START_REPLICATION's frames
 * routed to the stream's handlers, and the connection's failures turned into the stream's typed
 * {@link ReplicationException}s. A separate object so that {@code start}, {@code onFrame} and
 * {@code fail}, which only the connection may call, are not public methods of
 * {@link LogicalReplicationStream} and {@link PhysicalReplicationStream}.
 */
final class CopyBothExchange implements Exchange {
    private final CopyBothStream stream;

    CopyBothExchange(CopyBothStream stream) {
        this.stream = stream;
    }

    @Override
    public void start(ExchangeContext ctx) {
        stream.start(ctx);
    }

    @Override
    public boolean onFrame(byte type, ByteBuf payload) throws Exception {
        stream.received();
        switch (type) {
            case BackendMessage.COPY_DATA -> stream.onCopyData(payload);
            case BackendMessage.COPY_BOTH_RESPONSE -> stream.onCopyBoth();
            case BackendMessage.COPY_DONE -> stream.onServerCopyDone();
            case BackendMessage.ERROR_RESPONSE -> stream.onError(new PgException(ErrorFields.decode(payload, type)));
            case BackendMessage.COMMAND_COMPLETE -> stream.onCommandComplete();
            case BackendMessage.ROW_DESCRIPTION -> { /* the end-of-timeline row: fixed layout, read by position */ }
            case BackendMessage.DATA_ROW -> stream.onDataRow(payload);
            case BackendMessage.READY_FOR_QUERY -> {
                stream.finish();
                return true;
            }
            default -> throw new PgClientException(PgClientException.Kind.PROTOCOL,
                    "protocol violation: unexpected " + BackendMessage.name(type) + " during START_REPLICATION");
        }
        return false;
    }

    @Override
    public void onReadComplete(int bytesRead) {
        stream.readComplete(bytesRead);
    }

    @Override
    public void fail(Throwable cause) {
        stream.fail(cause);
    }

    @Override
    public void onNotice(ErrorFields notice) {
        stream.onNotice(notice);
    }

    /**
     * The typed failure for why the connection ended a stream that had not failed yet.
     *
     * @param cause      what the connection reported
     * @param beforeCopy whether copy mode had not begun (a server error then is about the start)
     * @return the stream's failure
     */
    static ReplicationException classify(Throwable cause, boolean beforeCopy) {
        if (cause instanceof PgException pe) {
            return ReplicationServerErrorException.classify(pe, beforeCopy);
        } else if (cause instanceof ReplicationException re) {
            return re;
        } else if (cause instanceof MalformedMessageException m) {
            return new ReplicationProtocolException(m); // framing or message layout: the same bytes come again
        } else if (cause instanceof PgClientException p && p.kind() == PgClientException.Kind.PROTOCOL) {
            return new ReplicationProtocolException(p);
        }
        return new ReplicationConnectionLostException("replication connection lost"
                + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage()), cause);
    }
}
