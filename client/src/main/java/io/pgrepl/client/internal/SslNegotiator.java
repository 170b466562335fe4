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
 * its text, since nothing has authenticated the server yet (CVE-2024-10977). Any other first byte
 * means the peer is not PostgreSQL at all (a web server answers 'H'), and is reported as libpq does.
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
            } else if (answer != 'S' && answer != 'N') {
                // Not a PostgreSQL server (an HTTP server answers 'H'): say what psql says. Checked
                // before the trailing bytes, because such a peer always sends more than one byte.
                fail(ctx, new PgClientException(PgClientException.Kind.PROTOCOL,
                        "received invalid response to SSL negotiation: " + printable(answer)
                                + " (is this port a PostgreSQL server?)"));
            } else if (buf.isReadable()) {
                fail(ctx, new PgClientException(PgClientException.Kind.PROTOCOL,
                        "received unencrypted data after SSL response (possible man-in-the-middle: CVE-2021-23222)"));
            } else {
                ctx.pipeline().remove(this);
                onAnswer.accept(answer == 'S' ? Answer.SSL : Answer.NO_SSL);
            }
        } finally {
            buf.release();
        }
    }

    /** The byte as psql's {@code %c} shows it when printable, else in hex. */
    static String printable(byte b) {
        return b >= 0x21 && b < 0x7f ? String.valueOf((char) b) : "0x" + Integer.toHexString(b & 0xff);
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
