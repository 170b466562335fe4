package io.pgrepl.client.stream;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.FakeBackend;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A FAKE walsender: a scripted TCP peer for what no real server does on demand (malformed
 * pgoutput, exact silences). One connection unless told otherwise; trust authentication; the
 * script runs after the startup exchange. {@link #close()} fails the test if the script failed.
 */
final class FakeWalSender implements AutoCloseable {
    interface Script {
        void run(DataInputStream in, DataOutputStream out) throws Exception;
    }

    private final FakeBackend backend;
    final CompletableFuture<Void> done;

    FakeWalSender(Script script) throws IOException {
        this(1, script);
    }

    /** Serves {@code connections} connections one after the other, each with {@code script}. */
    FakeWalSender(int connections, Script script) throws IOException {
        backend = new FakeBackend(connections, (in, out) -> {
            FakeBackend.readUntyped(in); // StartupMessage
            out.write(FakeBackend.startupOk("17.6")); // trust
            out.flush();
            script.run(in, out);
        });
        done = backend.done;
    }

    ConnectionConfig config() {
        return configBuilder().build();
    }

    ConnectionConfig.Builder configBuilder() {
        return ConnectionConfig.builder().host("127.0.0.1").port(backend.port()).user("alice")
                .database("db").replication(ReplicationMode.DATABASE).sslMode(SslMode.DISABLE)
                .connectTimeout(Duration.ofSeconds(5));
    }

    /** Connections accepted so far. */
    int accepted() {
        return backend.accepted();
    }

    /** Rethrows a failure of the script (an assertion on what the client sent, say). */
    @Override
    public void close() throws IOException {
        backend.close();
    }

    /** Reads frontend messages until one of {@code type}; returns it. */
    static byte[] readUntil(DataInputStream in, char type) throws IOException {
        while (true) {
            byte[] m = FakeBackend.readTyped(in);
            if (m[0] == type) return m;
        }
    }

    /** Says nothing and reads (status updates) until the client closes the connection. */
    static void silentUntilClientCloses(DataInputStream in) throws IOException {
        while (in.read() >= 0) { /* status updates */ }
    }

    /**
     * What a reconnecting stream runs before START_REPLICATION: the publication check (the
     * publication exists), then IDENTIFY_SYSTEM (system 7000000000000000001, timeline 1).
     */
    static void answerPublicationCheck(DataInputStream in, DataOutputStream out) throws IOException {
        String q = new String(readUntil(in, 'Q'), java.nio.charset.StandardCharsets.UTF_8);
        if (!q.contains("pg_get_publication_tables('pub')")) throw new AssertionError("not the publication check: " + q);
        out.write(FakeBackend.msg('C', FakeBackend.cstrings("SELECT 1")));
        out.write(FakeBackend.msg('Z', new byte[] {'I'}));
        out.flush();
        answerIdentifySystem(in, out, "7000000000000000001", 1);
    }

    /** Reads IDENTIFY_SYSTEM and answers it. */
    static void answerIdentifySystem(DataInputStream in, DataOutputStream out, String systemId, long timeline)
            throws IOException {
        String q = new String(readUntil(in, 'Q'), java.nio.charset.StandardCharsets.UTF_8);
        if (!q.contains("IDENTIFY_SYSTEM")) throw new AssertionError("not IDENTIFY_SYSTEM: " + q);
        out.write(textRow(new String[] {"systemid", "timeline", "xlogpos", "dbname"},
                new String[] {systemId, Long.toString(timeline), "0/5000000", "db"}));
        out.write(FakeBackend.msg('C', FakeBackend.cstrings("IDENTIFY_SYSTEM")));
        out.write(FakeBackend.msg('Z', new byte[] {'I'}));
        out.flush();
    }

    /** Reads TIMELINE_HISTORY {@code timeline} and answers with {@code content}. */
    static void answerTimelineHistory(DataInputStream in, DataOutputStream out, long timeline, String content)
            throws IOException {
        String q = new String(readUntil(in, 'Q'), java.nio.charset.StandardCharsets.UTF_8);
        if (!q.contains("TIMELINE_HISTORY " + timeline)) throw new AssertionError("not TIMELINE_HISTORY " + timeline + ": " + q);
        out.write(textRow(new String[] {"filename", "content"},
                new String[] {String.format("%08X.history", timeline), content}));
        out.write(FakeBackend.msg('C', FakeBackend.cstrings("TIMELINE_HISTORY")));
        out.write(FakeBackend.msg('Z', new byte[] {'I'}));
        out.flush();
    }

    /** RowDescription (text columns) and one DataRow. */
    private static byte[] textRow(String[] names, String[] values) {
        java.io.ByteArrayOutputStream desc = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream row = new java.io.ByteArrayOutputStream();
        ByteBuffer count = ByteBuffer.allocate(2).putShort((short) names.length);
        desc.writeBytes(count.array());
        row.writeBytes(count.array());
        for (int i = 0; i < names.length; i++) {
            desc.writeBytes(FakeBackend.cstrings(names[i]));
            desc.writeBytes(ByteBuffer.allocate(18).putInt(0).putShort((short) 0).putInt(25).putShort((short) -1)
                    .putInt(-1).putShort((short) 0).array());
            byte[] v = values[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            row.writeBytes(ByteBuffer.allocate(4).putInt(v.length).array());
            row.writeBytes(v);
        }
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        all.writeBytes(FakeBackend.msg('T', desc.toByteArray()));
        all.writeBytes(FakeBackend.msg('D', row.toByteArray()));
        return all.toByteArray();
    }

    /** Reads the Query, answers CopyBothResponse. */
    static void enterCopyBoth(DataInputStream in, DataOutputStream out) throws IOException {
        readUntil(in, 'Q');
        out.write(FakeBackend.msg('W', new byte[] {0, 0, 0}));
        out.flush();
    }

    /** Waits for the client's CopyDone (status updates before it skipped) and ends the command. */
    static void finishAfterClientCopyDone(DataInputStream in, DataOutputStream out) throws IOException {
        readUntil(in, 'c');
        out.write(FakeBackend.msg('c', new byte[0]));
        out.write(FakeBackend.msg('C', FakeBackend.cstrings("START_REPLICATION")));
        out.write(FakeBackend.msg('Z', new byte[] {'I'}));
        out.flush();
    }

    /** CopyData carrying XLogData with {@code data} as its payload. */
    static byte[] xlogData(long walStart, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(1 + 24 + data.length);
        b.put((byte) 'w').putLong(walStart).putLong(walStart).putLong(0).put(data);
        return FakeBackend.msg('d', b.array());
    }

    /** CopyData carrying a PrimaryKeepalive. */
    static byte[] keepalive(long walEnd, boolean reply) {
        ByteBuffer b = ByteBuffer.allocate(18);
        b.put((byte) 'k').putLong(walEnd).putLong(0).put((byte) (reply ? 1 : 0));
        return FakeBackend.msg('d', b.array());
    }
}
