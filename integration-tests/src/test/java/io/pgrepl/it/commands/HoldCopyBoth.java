package io.pgrepl.it.commands;

import io.netty.buffer.ByteBuf;
import io.pgrepl.client.PgException;
import io.pgrepl.client.internal.Exchange;
import io.pgrepl.client.internal.ExchangeContext;
import io.pgrepl.client.internal.Frontend;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.ErrorFields;
import java.util.concurrent.CompletableFuture;

/**
 * Test-only raw exchange: sends a START_REPLICATION and stays in CopyBoth, ignoring the data,
 * so the slot is active (for the 55006 test). Also shows the exchange hook the streaming layer uses.
 */
final class HoldCopyBoth implements Exchange {
    final CompletableFuture<Void> streaming = new CompletableFuture<>();
    private final String command;

    HoldCopyBoth(String command) {
        this.command = command;
    }

    @Override
    public void start(ExchangeContext ctx) {
        ctx.writeAndFlush(Frontend.query(ctx.alloc(), command));
    }

    @Override
    public boolean onFrame(byte type, ByteBuf payload) {
        switch (type) {
            case BackendMessage.COPY_BOTH_RESPONSE -> streaming.complete(null);
            case BackendMessage.ERROR_RESPONSE -> streaming.completeExceptionally(new PgException(ErrorFields.decode(payload, type)));
            case BackendMessage.READY_FOR_QUERY -> {
                return true;
            }
            default -> { } // CopyData, CommandComplete: not needed here
        }
        return false;
    }

    @Override
    public void fail(Throwable cause) {
        streaming.completeExceptionally(cause);
    }
}
