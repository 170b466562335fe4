package io.pgrepl.testkit.fault;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 (random free port) in front of one PostgreSQL server, that misbehaves
 * on demand: the network faults a replication client must survive, which a real server cannot be
 * made to produce. Plain Netty, one event-loop thread for every connection it carries.
 *
 * <p>Faults act on the connections open when they are called, except {@link #cutNextStartups}
 * (the next new connections) and {@link #trickle} (everything, for a while):
 * <ul>
 *   <li>{@link #stall()}: nothing is forwarded either way; nothing is closed;</li>
 *   <li>{@link #cutNow()}: both sides closed at once; {@link #cutAfterServerBytes(long)} after
 *       that many more server-to-client bytes; {@link #cutInsideNextCopyData()} in the middle of
 *       the next XLogData CopyData frame; {@link #cutNextStartups(int, int)} in the middle of an
 *       Authentication request (11 = SASLContinue: inside the SCRAM exchange);</li>
 *   <li>{@link #trickle(Duration)}: one byte per write and flush, both ways;</li>
 *   <li>{@link #halfOpen()}: the server side is closed (the walsender sees EOF), the client side
 *       stays open and silent;</li>
 *   <li>{@link #resume()}: stalled connections forward again, planned cuts and trickle are off.</li>
 * </ul>
 * The proxy parses the client's StandbyStatusUpdates and reports them to a {@link StatusUpdateListener}
 * as the server will see them.
 */
public final class FaultProxy implements AutoCloseable {
    /** A StandbyStatusUpdate on its way to the server (called on the proxy's event loop). */
    @FunctionalInterface
    public interface StatusUpdateListener {
        void onStatusUpdate(int connection, long write, long flush, long apply, boolean replyRequested);
    }

    private final EventLoopGroup group;
    private final EventLoop loop;
    private final Channel acceptor;
    private final InetSocketAddress target;
    private final List<Link> links = new ArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger cuts = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong trickled = new java.util.concurrent.atomic.AtomicLong();
    private final List<String> cutLog = new CopyOnWriteArrayList<>();
    private volatile StatusUpdateListener statusListener = (c, w, f, a, r) -> {};
    private volatile long trickleUntilNanos;
    private volatile boolean trickleOn;
    private int startupCutsLeft;
    private int startupCutAuthCode = -1;

    private FaultProxy(String host, int port) {
        this.target = new InetSocketAddress(host, port);
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("fault-proxy", true),
                NioIoHandler.newFactory());
        this.loop = group.next();
        ServerBootstrap sb = new ServerBootstrap().group(loop).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        try {
            this.acceptor = sb.bind("127.0.0.1", 0).sync().channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw new IllegalStateException("interrupted while binding the fault proxy", e);
        }
    }

    /** A proxy in front of {@code host:port}, listening on 127.0.0.1 and a free port. */
    public static FaultProxy start(String host, int port) {
        return new FaultProxy(host, port);
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return ((InetSocketAddress) acceptor.localAddress()).getPort();
    }

    public void statusUpdateListener(StatusUpdateListener listener) {
        this.statusListener = listener;
    }

    /** Connections accepted so far. */
    public int connectionsAccepted() {
        return accepted.get();
    }

    /** Cuts the proxy made (each says where it landed in {@link #cutLog()}). */
    public int cuts() {
        return cuts.get();
    }

    /** Single-byte writes made while trickling. */
    public long trickledWrites() {
        return trickled.get();
    }

    public List<String> cutLog() {
        return List.copyOf(cutLog);
    }

    /** Connections currently open (client side). */
    public int openConnections() {
        return onLoop(links::size);
    }

    // ---- faults

    public void stall() {
        onLoopEach(Link::stall);
    }

    public void cutNow() {
        onLoopEach(Link::cut);
    }

    /** Each open connection forwards {@code bytes} more server-to-client bytes, then both sides close. */
    public void cutAfterServerBytes(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("bytes must be >= 0");
        onLoopEach(l -> {
            l.cutReason = "after " + bytes + " more server bytes";
            l.cutAfter = bytes;
        });
    }

    /** Each open connection is cut in the middle of the next XLogData CopyData frame from the server. */
    public void cutInsideNextCopyData() {
        onLoopEach(l -> l.cutInsideCopyData = true);
    }

    /**
     * The next {@code count} new connections are cut in the middle of the first Authentication
     * request with code {@code authRequestCode} (10 SASL, 11 SASLContinue, 12 SASLFinal, 5 MD5).
     */
    public void cutNextStartups(int count, int authRequestCode) {
        onLoop(() -> {
            startupCutsLeft = count;
            startupCutAuthCode = authRequestCode;
            return null;
        });
    }

    /** One byte per write, both ways, on every connection, for {@code duration}. */
    public void trickle(Duration duration) {
        trickleUntilNanos = System.nanoTime() + duration.toNanos();
        trickleOn = true;
    }

    public void halfOpen() {
        onLoopEach(Link::halfOpen);
    }

    /** Stalled connections forward again; planned cuts and trickle are cancelled. */
    public void resume() {
        trickleOn = false;
        onLoop(() -> {
            startupCutsLeft = 0;
            for (Link l : List.copyOf(links)) l.resume();
            return null;
        });
    }

    @Override
    public void close() {
        try {
            onLoopEach(Link::close);
            acceptor.close().syncUninterruptibly();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    // ---- package: called by links on the loop

    boolean trickling() {
        if (!trickleOn) return false;
        if (System.nanoTime() - trickleUntilNanos > 0) {
            trickleOn = false;
            return false;
        }
        return true;
    }

    void trickledWrite() {
        trickled.incrementAndGet();
    }

    void statusUpdate(int connection, long write, long flush, long apply, boolean reply) {
        statusListener.onStatusUpdate(connection, write, flush, apply, reply);
    }

    void cutDone(Link l, String where) {
        cuts.incrementAndGet();
        cutLog.add("connection " + l.id + ": " + where);
    }

    void linkClosed(Link l) {
        links.remove(l);
    }

    // ---- plumbing

    private void accept(SocketChannel client) {
        Link link = new Link(accepted.incrementAndGet(), client, this);
        links.add(link);
        if (startupCutsLeft > 0) {
            startupCutsLeft--;
            link.cutInsideAuth = startupCutAuthCode;
        }
        client.pipeline().addLast(new Side(link, true));
        ChannelFuture f = new Bootstrap().group(client.eventLoop()).channel(NioSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new Side(link, false))
                .connect(target);
        link.server = f.channel();
        f.addListener(done -> {
            if (!done.isSuccess()) {
                link.close();
                return;
            }
            if (link.closed) {
                f.channel().close();
                return;
            }
            if (!link.stalled) {
                client.config().setAutoRead(true);
                f.channel().config().setAutoRead(true);
            }
        });
    }

    /** Inbound handler of one side of a link. */
    private static final class Side extends ChannelInboundHandlerAdapter {
        private final Link link;
        private final boolean clientSide;

        Side(Link link, boolean clientSide) {
            this.link = link;
            this.clientSide = clientSide;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            if (clientSide) link.readFromClient(buf);
            else link.readFromServer(buf);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            link.writabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (clientSide) link.clientClosed();
            else link.serverClosed();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a reset is a close here
        }
    }

    private void onLoopEach(java.util.function.Consumer<Link> action) {
        onLoop(() -> {
            for (Link l : List.copyOf(links)) action.accept(l);
            return null;
        });
    }

    private <T> T onLoop(Callable<T> task) {
        if (loop.inEventLoop()) {
            try {
                return task.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        try {
            return loop.submit(task).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("fault proxy task failed", e);
        }
    }
}
