package io.pgrepl.client.snapshot;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import io.pgrepl.client.internal.Exchange;
import io.pgrepl.client.internal.ExchangeContext;
import io.pgrepl.client.internal.Frontend;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.copy.CopyOutDecoder;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One {@code COPY (...) TO STDOUT} as a simple query: CopyOutResponse, CopyData rows decoded in
 * place by {@link CopyOutDecoder}, CopyDone, CommandComplete, ReadyForQuery. The future yields the
 * rows copied. A handler exception stops delivery; the exchange drains to ReadyForQuery and fails
 * with it, so the connection stays in step.
 */
final class CopyOutExchange implements Exchange {
    private final String sql;
    private final RelationInfo relation;
    private final boolean binary;
    private final CopyOutDecoder decoder;
    private final CopyOutDecoder.RowHandler rows;
    private final Consumer<Channel> onStart;
    private final CompletableFuture<Long> future = new CompletableFuture<>();
    private Throwable error;
    private long copied;

    CopyOutExchange(String sql, RelationInfo relation, boolean binary, CopyOutDecoder decoder, CopyOutDecoder.RowHandler rows,
                    Consumer<Channel> onStart) {
        this.sql = sql;
        this.relation = relation;
        this.binary = binary;
        this.decoder = decoder;
        this.rows = rows;
        this.onStart = onStart;
    }

    CompletableFuture<Long> future() {
        return future;
    }

    @Override
    public void start(ExchangeContext ctx) {
        onStart.accept(ctx.channel());
        ctx.writeAndFlush(Frontend.query(ctx.alloc(), sql));
    }

    @Override
    public boolean onFrame(byte type, ByteBuf payload) {
        switch (type) {
            case BackendMessage.COPY_OUT_RESPONSE -> decoder.start(payload, relation, binary);
            case BackendMessage.COPY_DATA -> {
                if (error == null) {
                    try {
                        decoder.decode(payload, rows);
                    } catch (HandlerFailure e) {
                        error = e;
                    }
                }
            }
            case BackendMessage.COPY_DONE -> copied = decoder.finish();
            case BackendMessage.COMMAND_COMPLETE, BackendMessage.EMPTY_QUERY_RESPONSE -> { }
            case BackendMessage.ERROR_RESPONSE -> {
                if (error == null) error = new PgException(ErrorFields.decode(payload, type));
            }
            case BackendMessage.READY_FOR_QUERY -> {
                if (error != null) future.completeExceptionally(error);
                else future.complete(copied);
                return true;
            }
            default -> throw new PgClientException(PgClientException.Kind.PROTOCOL,
                    "protocol violation: unexpected " + BackendMessage.name(type) + " during COPY TO STDOUT");
        }
        return false;
    }

    @Override
    public void fail(Throwable cause) {
        future.completeExceptionally(error != null ? error : cause);
    }

    /** Wraps an exception thrown by the application's handler, to tell it from a decoding error. */
    static final class HandlerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HandlerFailure(Throwable cause) {
            super(cause);
        }
    }
}
