package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.pgrepl.client.PgClientException;
import java.util.function.Consumer;

/**
 * Reads the server's one-byte answer to SSLRequest and removes itself. Anything beyond that
 * byte already in the buffer was sent before the TLS handshake, i.e. it was injected by
 * someone in the middle (CVE-2021-23222): abort. An ErrorResponse answer is reported without
 * its text, since nothing has authenticated the server yet (CVE-2024-10977).
 */
public final class SslNegotiator extends ChannelInboundHandlerAdapter {
    /** What the server said. */
    public enum Answer { SSL, NO_SSL }

    private final Consumer<Answer> onAnswer;
    private final Consumer<Throwable> onFailure;
    private boolean done;

    public SslNegotiator(Consumer<Answer> onAnswer, Consumer<Throwable> onFailure) {
        this.onAnswer = onAnswer;
        this.onFailure = onFailure;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (done || !buf.isReadable()) return;
            done = true;
            byte answer = buf.readByte();
            if (answer == 'E') {
                fail(ctx, new PgClientException(PgClientException.Kind.TLS,
                        "server answered SSLRequest with an error (its text is not shown: the server is not authenticated yet)"));
            } else if (buf.isReadable()) {
                fail(ctx, new PgClientException(PgClientException.Kind.PROTOCOL,
                        "received unencrypted data after SSL response (possible man-in-the-middle: CVE-2021-23222)"));
            } else if (answer == 'S' || answer == 'N') {
                ctx.pipeline().remove(this);
                onAnswer.accept(answer == 'S' ? Answer.SSL : Answer.NO_SSL);
            } else {
                fail(ctx, new PgClientException(PgClientException.Kind.PROTOCOL,
                        "received invalid response to SSL negotiation: 0x" + Integer.toHexString(answer & 0xff)));
            }
        } finally {
            buf.release();
        }
    }

    private void fail(ChannelHandlerContext ctx, Throwable t) {
        // Report first: closing fires close listeners that would report a vaguer reason.
        onFailure.accept(t);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!done) {
            done = true;
            onFailure.accept(new PgClientException(PgClientException.Kind.CONNECTION,
                    "server closed the connection during SSL negotiation"));
        }
        ctx.fireChannelInactive();
    }
}
