package io.pgrepl.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * A FAKE HTTP server on 127.0.0.1: what a client meets when the port it was given belongs to a web
 * server (a wrong port, a proxy, a health endpoint). Like many servers it answers whatever it
 * reads with "400 Bad Request" at once and closes. One connection.
 */
final class FakeHttpServer implements AutoCloseable {
    private final ServerSocket socket;
    /** Completes with the number of bytes the client sent before the answer. */
    final CompletableFuture<Integer> served = new CompletableFuture<>();

    FakeHttpServer() throws IOException {
        socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (Socket s = socket.accept()) {
                InputStream in = s.getInputStream();
                byte[] request = new byte[1024];
                int n = in.read(request);
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n"
                        + "Connection: close\r\n\r\nBad Request").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                served.complete(n);
            } catch (Throwable e) {
                served.completeExceptionally(e);
            }
        }, "fake-http-server");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
