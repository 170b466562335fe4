package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.backend.NotificationResponse;
import io.pgrepl.codec.backend.ParameterStatus;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-connection protocol state machine: a FIFO of {@link Exchange}s, one active at a time.
 * Asynchronous messages (ParameterStatus, NoticeResponse, NotificationResponse) are consumed
 * here whenever they arrive; every other frame goes to the active exchange. A FATAL
 * ErrorResponse is remembered so that everything pending fails with it when the server closes.
 */
public final class ConnectionHandler extends ChannelInboundHandlerAdapter
        implements BackendFrameDecoder.FrameSink, ExchangeContext {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final Channel channel;
    private final ArrayDeque<Exchange> queue = new ArrayDeque<>();
    private Exchange active;
    private boolean closed;
    private Throwable closeCause;
    private volatile Map<String, String> parameters = Map.of();
    private volatile int serverVersionNum;
    private volatile Consumer<ErrorFields> noticeListener = n -> log.info("server notice: {}", n);
    private volatile Consumer<NotificationResponse> notificationListener = n -> {};

    public ConnectionHandler(Channel channel) {
        this.channel = channel;
    }

    /** Queues an exchange; safe from any thread. */
    public void submit(Exchange exchange) {
        if (channel.eventLoop().inEventLoop()) {
            enqueue(exchange);
        } else {
            channel.eventLoop().execute(() -> enqueue(exchange));
        }
    }

    private void enqueue(Exchange exchange) {
        if (closed) {
            exchange.fail(closedError());
            return;
        }
        queue.add(exchange);
        startNext();
    }

    private void startNext() {
        while (active == null && !queue.isEmpty() && !closed) {
            active = queue.poll();
            try {
                active.start(this);
            } catch (Throwable t) {
                failConnection(t);
            }
        }
    }

    @Override
    public void onFrame(byte type, ByteBuf payload) throws Exception {
        switch (type) {
            case BackendMessage.PARAMETER_STATUS -> onParameterStatus(ParameterStatus.decode(payload));
            case BackendMessage.NOTICE_RESPONSE -> {
                ErrorFields f = ErrorFields.decode(payload, type);
                if (active != null) active.onNotice(f);
                try {
                    noticeListener.accept(f);
                } catch (RuntimeException e) {
                    log.warn("notice listener failed", e);
                }
            }
            case BackendMessage.NOTIFICATION_RESPONSE -> notificationListener.accept(NotificationResponse.decode(payload));
            default -> route(type, payload);
        }
    }

    @Override
    public void onReadComplete(int bytesRead) {
        if (active != null) active.onReadComplete(bytesRead);
    }

    private void route(byte type, ByteBuf payload) throws Exception {
        if (type == BackendMessage.ERROR_RESPONSE) {
            ErrorFields f = ErrorFields.decode(payload, type);
            PgException e = new PgException(f);
            if (e.isFatal()) closeCause = e;
            if (active == null) {
                // e.g. FATAL 57P01 while idle; the server closes next.
                if (!e.isFatal()) throw protocol("ErrorResponse with no command in progress");
                return;
            }
        } else if (active == null) {
            throw protocol(BackendMessage.name(type) + " with no command in progress");
        }
        Exchange current = active;
        if (current.onFrame(type, payload)) {
            if (active == current) active = null;
            startNext();
        }
    }

    private static PgClientException protocol(String what) {
        return new PgClientException(PgClientException.Kind.PROTOCOL, "protocol violation: unexpected " + what);
    }

    private void onParameterStatus(ParameterStatus p) {
        Map<String, String> copy = new HashMap<>(parameters);
        copy.put(p.name(), p.value());
        parameters = Collections.unmodifiableMap(copy);
        if (p.name().equals("server_version")) {
            serverVersionNum = ServerVersion.parse(p.value());
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failConnection(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        failConnection(null);
        ctx.fireChannelInactive();
    }

    /** Fails the active and queued exchanges and closes; {@code cause} null means the peer closed. */
    public void failConnection(Throwable cause) {
        if (cause != null && closeCause == null) closeCause = cause;
        if (!closed) {
            closed = true;
            if (cause != null && !(cause instanceof PgException)) {
                log.debug("closing connection after failure", cause);
            }
        }
        Throwable error = closedError();
        Exchange a = active;
        active = null;
        if (a != null) a.fail(error);
        Exchange q;
        while ((q = queue.poll()) != null) q.fail(error);
        if (channel.isOpen()) channel.close();
    }

    /**
     * The application closes the connection (any thread): Terminate, then the socket closes at
     * once; what was running or queued (a stream's subscriber among them) fails saying the
     * application closed it, so that nobody goes looking for a network fault.
     *
     * @return completes when the socket is closed
     */
    public CompletionStage<Void> terminate() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        channel.closeFuture().addListener(f -> done.complete(null));
        try {
            channel.eventLoop().execute(() -> {
                if (closeCause == null) {
                    closeCause = new PgClientException(PgClientException.Kind.CONNECTION,
                            "connection closed by the application (PgConnection.close)");
                }
                if (channel.isActive()) {
                    channel.writeAndFlush(Frontend.terminate(channel.alloc())).addListener(f -> channel.close());
                } else {
                    channel.close();
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException loopGone) {
            channel.close(); // the event loop group was shut down first: the channel is closed or closing
        }
        return done;
    }

    private Throwable closedError() {
        if (closeCause != null) return closeCause;
        return new PgClientException(PgClientException.Kind.CONNECTION, "connection closed");
    }

    /** Graceful close: Terminate after everything queued, then close. */
    public boolean isClosed() {
        return closed;
    }

    // ExchangeContext

    @Override
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    @Override
    public void write(ByteBuf message) {
        channel.write(message, channel.voidPromise());
    }

    @Override
    public void flush() {
        channel.flush();
    }

    @Override
    public Channel channel() {
        return channel;
    }

    @Override
    public int serverVersionNum() {
        return serverVersionNum;
    }

    @Override
    public Map<String, String> parameters() {
        return parameters;
    }

    public void noticeListener(Consumer<ErrorFields> listener) {
        this.noticeListener = listener;
    }

    public void notificationListener(Consumer<NotificationResponse> listener) {
        this.notificationListener = listener;
    }
}
