package io.pgrepl.testkit.fault;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.ArrayDeque;

/**
 * One proxied connection: the client's channel and the server's, both on the proxy's single
 * event loop (so no field here needs a lock). Every method runs on that loop.
 */
final class Link {
    private static final byte COPY_DATA = 'd';
    private static final byte AUTHENTICATION = 'R';

    final int id;
    final Channel client;
    Channel server;
    private final FaultProxy proxy;
    private final WireScanner fromClient = new WireScanner(true, 34);
    private final WireScanner fromServer = new WireScanner(false, 5);
    private final ArrayDeque<ByteBuf> heldForServer = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> heldForClient = new ArrayDeque<>();
    private final long[] cutOut = new long[1];
    boolean stalled;
    boolean halfOpen;
    boolean closed;
    /** Server->client bytes still to forward before the cut; -1 = no cut planned. */
    long cutAfter = -1;
    boolean cutInsideCopyData;
    /** Authentication request code (e.g. 11, SASLContinue) in whose middle to cut; -1 = none. */
    int cutInsideAuth = -1;
    String cutReason;

    Link(int id, Channel client, FaultProxy proxy) {
        this.id = id;
        this.client = client;
        this.proxy = proxy;
        fromClient.peer = fromServer;
    }

    // ---- client -> server

    void readFromClient(ByteBuf buf) {
        if (closed || halfOpen || server == null) {
            buf.release(); // half-open: the client talks to nobody
            return;
        }
        if (stalled) {
            heldForServer.add(buf);
            return;
        }
        int n = buf.readableBytes();
        fromClient.scan(buf, n, this::clientFrame, cutOut);
        write(server, buf);
        if (!server.isWritable()) client.config().setAutoRead(false);
    }

    private long clientFrame(byte type, int bodyLength, byte[] peek, int peeked) {
        // StandbyStatusUpdate: CopyData 'r' write(8) flush(8) apply(8) clock(8) reply(1)
        if (type == COPY_DATA && peeked >= 34 && peek[0] == 'r') {
            proxy.statusUpdate(id, WireScanner.readLong(peek, 1), WireScanner.readLong(peek, 9),
                    WireScanner.readLong(peek, 17), peek[33] != 0);
        }
        return -1;
    }

    // ---- server -> client

    void readFromServer(ByteBuf buf) {
        if (closed || halfOpen) {
            buf.release();
            return;
        }
        if (stalled) {
            heldForClient.add(buf);
            return;
        }
        while (buf.isReadable()) {
            if (cutAfter == 0) {
                buf.release();
                cut();
                return;
            }
            int max = buf.readableBytes();
            if (cutAfter > 0 && cutAfter < max) max = (int) cutAfter;
            int scanned = fromServer.scan(buf, max, this::serverFrame, cutOut);
            if (cutAfter > 0) cutAfter -= scanned;
            if (cutOut[0] >= 0) cutAfter = cutOut[0];
            write(client, buf.readRetainedSlice(scanned));
        }
        buf.release();
        if (cutAfter == 0) {
            cut();
            return;
        }
        if (!client.isWritable()) server.config().setAutoRead(false);
    }

    private long serverFrame(byte type, int bodyLength, byte[] peek, int peeked) {
        long left = fromServer.bodyLeft();
        if (type == COPY_DATA && cutInsideCopyData && peeked > 0 && peek[0] == 'w' && left >= 2) {
            cutInsideCopyData = false;
            cutReason = "inside a CopyData (XLogData) frame of " + bodyLength + " bytes";
            return left / 2;
        }
        if (type == AUTHENTICATION && cutInsideAuth >= 0 && peeked >= 4 && WireScanner.readInt(peek, 0) == cutInsideAuth
                && left >= 2) {
            cutReason = "inside Authentication request " + cutInsideAuth;
            cutInsideAuth = -1;
            return left / 2;
        }
        return -1;
    }

    // ---- forwarding

    private void write(Channel to, ByteBuf buf) {
        if (proxy.trickling() && buf.readableBytes() > 1) {
            // One byte per write and flush: the peer's reads see the frame in the smallest pieces TCP allows.
            while (buf.isReadable()) {
                to.writeAndFlush(buf.readRetainedSlice(1));
                proxy.trickledWrite();
            }
            buf.release();
        } else {
            to.writeAndFlush(buf);
        }
    }

    void writabilityChanged() {
        if (closed || stalled || halfOpen) return;
        if (server != null && server.isWritable()) client.config().setAutoRead(true);
        if (client.isWritable() && server != null) server.config().setAutoRead(true);
    }

    // ---- faults

    void stall() {
        stalled = true;
        // The client side is still read (and held) so that the client closing is seen and passed
        // on: the walsender then ends and frees the slot, as wal_sender_timeout would, later.
        if (server != null) server.config().setAutoRead(false);
    }

    void resume() {
        cutInsideCopyData = false;
        cutInsideAuth = -1;
        cutAfter = -1;
        if (!stalled || closed) return;
        stalled = false;
        while (!heldForServer.isEmpty()) readFromClient(heldForServer.poll());
        while (!heldForClient.isEmpty()) readFromServer(heldForClient.poll());
        if (closed) return;
        client.config().setAutoRead(true);
        if (server != null) server.config().setAutoRead(true);
    }

    /** The server side goes away (the walsender sees EOF); the client side stays open and hears nothing. */
    void halfOpen() {
        if (closed) return;
        halfOpen = true;
        releaseHeld();
        if (server != null) server.close();
        client.config().setAutoRead(true); // keep draining what the client sends, to nobody
    }

    /** Both sides closed now; what was already forwarded to the client is flushed first. */
    void cut() {
        if (closed) return;
        proxy.cutDone(this, cutReason == null ? "cut" : cutReason);
        close();
    }

    void close() {
        if (closed) return;
        closed = true;
        releaseHeld();
        if (server != null) server.close();
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        proxy.linkClosed(this);
    }

    void serverClosed() {
        if (!halfOpen) close();
    }

    void clientClosed() {
        close();
    }

    private void releaseHeld() {
        while (!heldForServer.isEmpty()) heldForServer.poll().release();
        while (!heldForClient.isEmpty()) heldForClient.poll().release();
    }
}
