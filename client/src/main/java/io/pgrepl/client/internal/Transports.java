package io.pgrepl.client.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Picks epoll where the native library loads, NIO elsewhere, and the channel type matching a group. */
public final class Transports {
    private static volatile EventLoopGroup shared;

    private Transports() {}

    /** A new group; the caller owns it and shuts it down. Daemon threads, so a forgotten group does not hold the JVM. */
    public static EventLoopGroup newGroup(int threads, String name) {
        DefaultThreadFactory tf = new DefaultThreadFactory(name, true);
        return new MultiThreadIoEventLoopGroup(threads, tf,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    /**
     * The process-wide group used when a config names none: created on first use, two threads at
     * most (a replication client is I/O-light), never shut down (daemon threads).
     */
    public static EventLoopGroup sharedGroup() {
        EventLoopGroup g = shared;
        if (g == null) {
            synchronized (Transports.class) {
                g = shared;
                if (g == null) {
                    g = newGroup(Math.min(2, Runtime.getRuntime().availableProcessors()), "pgrepl-io");
                    shared = g;
                }
            }
        }
        return g;
    }

    public static Class<? extends SocketChannel> channelType(EventLoopGroup group) {
        if (group instanceof IoEventLoopGroup io && Epoll.isAvailable() && io.isIoType(EpollIoHandler.class)) {
            return EpollSocketChannel.class;
        }
        return NioSocketChannel.class;
    }
}
