package io.pgrepl.client;

import io.pgrepl.client.config.SslMode;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A FAKE PostgreSQL backend: a scripted TCP peer for the misbehaviour no real server shows on
 * demand (buffer stuffing, malformed frames, out-of-order authentication). It serves
 * {@code connections} connections one after the other (default one), each with the same script.
 * The streaming tests' FakeWalSender builds on it.
 *
 * <p>A script that fails (an assertion on what the client sent, an unexpected EOF) fails the test:
 * {@link #close()} rethrows it. Only I/O errors caused by {@code close()} itself (the script was
 * still waiting for the client when the test ended) are not failures.
 */
public final class FakeBackend implements AutoCloseable {
    public interface Script {
        void run(DataInputStream in, DataOutputStream out) throws Exception;
    }

    private final ServerSocket socket;
    private final Thread thread;
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile Socket current;
    private volatile boolean closing;
    private volatile Throwable scriptFailure;
    /** Completes when every connection's script ran and its client closed; fails with the script's failure. */
    public final CompletableFuture<Void> done = new CompletableFuture<>();

    public FakeBackend(Script script) throws IOException {
        this(1, script);
    }

    /** Thrown by a script to close its connection at once (as a server does after a FATAL error) and serve the next. */
    public static final class HangUp extends RuntimeException {
        public HangUp() {
            super(null, null, false, false);
        }
    }

    public FakeBackend(int connections, Script script) throws IOException {
        socket = new ServerSocket(0, connections, InetAddress.getLoopbackAddress());
        thread = new Thread(() -> {
            try {
                for (int i = 0; i < connections; i++) {
                    try (Socket s = socket.accept()) {
                        current = s;
                        s.setTcpNoDelay(true); // as PostgreSQL's own sockets: each write goes out when written
                        accepted.incrementAndGet();
                        try {
                            script.run(new DataInputStream(s.getInputStream()), new DataOutputStream(s.getOutputStream()));
                        } catch (HangUp h) {
                            continue; // closed by the try-with-resources, as a server closes after a FATAL error
                        }
                        s.getOutputStream().flush();
                        // Keep the socket until the client closes, so its reaction is not a mere EOF.
                        s.setSoTimeout(10_000);
                        while (s.getInputStream().read() >= 0) { /* drain */ }
                    }
                }
                done.complete(null);
            } catch (Throwable e) {
                if (!(closing && e instanceof IOException)) scriptFailure = e;
                done.completeExceptionally(e);
            }
        }, "fake-backend");
        thread.setDaemon(true);
        thread.start();
    }

    /** Connections accepted so far. */
    public int accepted() {
        return accepted.get();
    }

    public int port() {
        return socket.getLocalPort();
    }

    ConnectionConfig.Builder config() {
        return ConnectionConfig.builder().host("127.0.0.1").port(port()).user("alice").password("pw-secret")
                .database("db").sslMode(SslMode.DISABLE).connectTimeout(java.time.Duration.ofSeconds(5));
    }

    /** Ends the fake; rethrows a failure of its script (see the class comment). */
    @Override
    public void close() throws IOException {
        closing = true;
        socket.close();
        Socket s = current;
        if (s != null) s.close();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Throwable f = scriptFailure;
        if (f != null) throw new AssertionError("the fake backend's script failed", f);
    }

    /** Reads the untyped StartupMessage / SSLRequest; returns its body after the length. */
    public static byte[] readUntyped(DataInputStream in) throws IOException {
        int len = in.readInt();
        byte[] b = new byte[len - 4];
        in.readFully(b);
        return b;
    }

    /** Reads one typed frontend message; returns type byte followed by the body. */
    public static byte[] readTyped(DataInputStream in) throws IOException {
        byte type = in.readByte();
        int len = in.readInt();
        byte[] b = new byte[len - 4 + 1];
        b[0] = type;
        in.readFully(b, 1, len - 4);
        return b;
    }

    public static byte[] msg(char type, byte[] body) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(type);
        int len = body.length + 4;
        o.write(len >>> 24);
        o.write(len >>> 16);
        o.write(len >>> 8);
        o.write(len);
        o.writeBytes(body);
        return o.toByteArray();
    }

    static byte[] auth(int code, byte[] extra) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(code >>> 24);
        o.write(code >>> 16);
        o.write(code >>> 8);
        o.write(code);
        o.writeBytes(extra);
        return msg('R', o.toByteArray());
    }

    /** Error/Notice body from alternating code/value strings: "S","FATAL","C","28000",... */
    static byte[] fields(String... codeValue) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (int i = 0; i < codeValue.length; i += 2) {
            o.write(codeValue[i].charAt(0));
            o.writeBytes(codeValue[i + 1].getBytes(StandardCharsets.UTF_8));
            o.write(0);
        }
        o.write(0);
        return o.toByteArray();
    }

    public static byte[] cstrings(String... s) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (String x : s) {
            o.writeBytes(x.getBytes(StandardCharsets.UTF_8));
            o.write(0);
        }
        return o.toByteArray();
    }

    /** AuthenticationOk, BackendKeyData, server_version, ReadyForQuery. */
    public static byte[] startupOk(String serverVersion) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(auth(0, new byte[0]));
        o.writeBytes(msg('K', new byte[] {0, 0, 0x30, 0x39, 1, 2, 3, 4}));
        o.writeBytes(msg('S', cstrings("server_version", serverVersion)));
        o.writeBytes(msg('Z', new byte[] {'I'}));
        return o.toByteArray();
    }
}
