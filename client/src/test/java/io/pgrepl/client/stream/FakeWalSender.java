package io.pgrepl.client.stream;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.config.SslMode;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A FAKE walsender: a scripted TCP peer for what no real server does on demand (malformed
 * pgoutput, exact silences). One connection; trust authentication; the script runs after
 * the startup exchange.
 */
final class FakeWalSender implements AutoCloseable {
    interface Script {
        void run(DataInputStream in, DataOutputStream out) throws Exception;
    }

    private final ServerSocket socket;
    final CompletableFuture<Void> done = new CompletableFuture<>();

    FakeWalSender(Script script) throws IOException {
        socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (Socket s = socket.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                int len = in.readInt();
                in.readFully(new byte[len - 4]); // StartupMessage
                out.write(msg('R', new byte[4])); // AuthenticationOk
                out.write(msg('K', new byte[] {0, 0, 0x30, 0x39, 1, 2, 3, 4}));
                out.write(msg('S', cstrings("server_version", "17.6")));
                out.write(msg('Z', new byte[] {'I'}));
                out.flush();
                script.run(in, out);
                out.flush();
                s.setSoTimeout(10_000);
                while (s.getInputStream().read() >= 0) { /* drain until the client closes */ }
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "fake-walsender");
        t.setDaemon(true);
        t.start();
    }

    ConnectionConfig config() {
        return ConnectionConfig.builder().host("127.0.0.1").port(socket.getLocalPort()).user("alice")
                .database("db").sslMode(SslMode.DISABLE).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** Reads one typed frontend message; returns the type byte followed by the body. */
    static byte[] readTyped(DataInputStream in) throws IOException {
        byte type = in.readByte();
        int len = in.readInt();
        byte[] b = new byte[len - 4 + 1];
        b[0] = type;
        in.readFully(b, 1, len - 4);
        return b;
    }

    /** Reads frontend messages until one of {@code type}; returns it. */
    static byte[] readUntil(DataInputStream in, char type) throws IOException {
        while (true) {
            byte[] m = readTyped(in);
            if (m[0] == type) return m;
        }
    }

    /** Reads the Query, answers CopyBothResponse. */
    static void enterCopyBoth(DataInputStream in, DataOutputStream out) throws IOException {
        readUntil(in, 'Q');
        out.write(msg('W', new byte[] {0, 0, 0}));
        out.flush();
    }

    /** Waits for the client's CopyDone (status updates before it skipped) and ends the command. */
    static void finishAfterClientCopyDone(DataInputStream in, DataOutputStream out) throws IOException {
        readUntil(in, 'c');
        out.write(msg('c', new byte[0]));
        out.write(msg('C', cstrings("START_REPLICATION")));
        out.write(msg('Z', new byte[] {'I'}));
        out.flush();
    }

    /** CopyData carrying XLogData with {@code data} as its payload. */
    static byte[] xlogData(long walStart, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(1 + 24 + data.length);
        b.put((byte) 'w').putLong(walStart).putLong(walStart).putLong(0).put(data);
        return msg('d', b.array());
    }

    /** CopyData carrying a PrimaryKeepalive. */
    static byte[] keepalive(long walEnd, boolean reply) {
        ByteBuffer b = ByteBuffer.allocate(18);
        b.put((byte) 'k').putLong(walEnd).putLong(0).put((byte) (reply ? 1 : 0));
        return msg('d', b.array());
    }

    static byte[] msg(char type, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(5 + body.length);
        b.put((byte) type).putInt(body.length + 4).put(body);
        return b.array();
    }

    static byte[] cstrings(String... s) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (String x : s) {
            o.writeBytes(x.getBytes(StandardCharsets.UTF_8));
            o.write(0);
        }
        return o.toByteArray();
    }
}
