package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.pgrepl.client.PgClientException;
import io.pgrepl.codec.backend.BackendMessage;

/**
 * The server's first message after the StartupMessage must be an authentication request, a
 * NegotiateProtocolVersion or an ErrorResponse, as libpq checks. Any other first byte means the
 * peer is not PostgreSQL (a web server answers {@code HTTP/1.1 400 ...}): reported the way psql
 * reports it, instead of as the frame-length error its next four bytes would make. Looks at that
 * one byte (after TLS, if any) and removes itself.
 */
public final class StartupAnswerCheck extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf) || !buf.isReadable()) {
            ctx.fireChannelRead(msg);
            return;
        }
        byte first = buf.getByte(buf.readerIndex());
        ctx.pipeline().remove(this);
        if (first == BackendMessage.AUTHENTICATION || first == BackendMessage.NEGOTIATE_PROTOCOL_VERSION
                || first == BackendMessage.ERROR_RESPONSE) {
            ctx.fireChannelRead(msg);
            return;
        }
        buf.release();
        ctx.fireExceptionCaught(new PgClientException(PgClientException.Kind.PROTOCOL,
                "expected authentication request from server, but received " + SslNegotiator.printable(first)
                        + " (the server is probably not PostgreSQL: is this the right port?)"));
    }
}
