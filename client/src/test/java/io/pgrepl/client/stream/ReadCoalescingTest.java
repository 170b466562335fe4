package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.FakeBackend;
import io.pgrepl.client.PgConnection;
import io.pgrepl.codec.pgoutput.CommitMessage;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Read coalescing: after a small socket read, reading pauses, and what the server wrote meanwhile
 * is read in one go; nothing is lost or stalled, and the application's own pause wins over ours.
 * Against {@link FakeWalSender}: a real walsender cannot be made to write one change at a time,
 * at chosen moments, on demand. The pause is long (100 ms) so that the fake's writes fall inside
 * it on a loaded machine too; nothing here measures time.
 */
class ReadCoalescingTest {
    private static final Duration PAUSE = Duration.ofMillis(100);

    private static long beginLsn(int tx) {
        return 0x1_0000L + tx * 0x100L;
    }

    private static long endLsn(int tx) {
        return beginLsn(tx) + 0x90;
    }

    /** One transaction (Begin, Commit), each message in its own write (the fake's stream is unbuffered), as the walsender sends them. */
    private static void writeTx(DataOutputStream out, int tx) throws IOException {
        out.write(begin(tx));
        out.write(commit(tx));
    }

    /** Frames in one write, so that one read brings them all. */
    private static void writeAtOnce(DataOutputStream out, byte[]... frames) throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (byte[] f : frames) all.write(f);
        out.write(all.toByteArray());
    }

    private static byte[] begin(int tx) {
        return FakeWalSender.xlogData(beginLsn(tx), ByteBuffer.allocate(21).put((byte) 'B')
                .putLong(beginLsn(tx) + 0x80).putLong(0).putInt(1000 + tx).array());
    }

    private static byte[] commit(int tx) {
        return FakeWalSender.xlogData(beginLsn(tx) + 0x80, ByteBuffer.allocate(26).put((byte) 'C').put((byte) 0)
                .putLong(beginLsn(tx) + 0x80).putLong(endLsn(tx)).putLong(0).array());
    }

    private static List<Long> ends(int from, int to) {
        List<Long> l = new ArrayList<>();
        for (int tx = from; tx < to; tx++) l.add(endLsn(tx));
        return l;
    }

    /** Streams with a {@link #PAUSE} of coalescing; {@code onCommit} also runs on the event loop after recording. */
    private static LogicalReplicationStream start(PgConnection conn, List<Long> commits, Consumer<LogicalReplicationStream> onCommit) {
        return LogicalReplicationStream.start(conn, LogicalReplicationOptions.builder("s1").publications("pub")
                .readCoalescing(PAUSE).build(), new LogicalStreamHandler() {
                    private LogicalReplicationStream stream;

                    @Override
                    public void onStarted(LogicalReplicationStream s) {
                        stream = s;
                    }

                    @Override
                    public void onCommit(CommitMessage m) {
                        commits.add(m.endLsn());
                        onCommit.accept(stream);
                    }
                });
    }

    private static void awaitCommits(List<Long> commits, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (commits.size() < n && System.nanoTime() < deadline) Thread.sleep(5);
    }

    @Test
    void changesWrittenOneByOneAreReadTogetherAndAllDelivered() throws Exception {
        int txs = 41;
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.enterCopyBoth(in, out);
            writeTx(out, 0); // read at once: the stream was idle
            for (int tx = 1; tx < txs; tx++) {
                Thread.sleep(1); // 80 writes over ~40 ms, well inside the pause that follows the first read
                writeTx(out, tx);
            }
            FakeWalSender.finishAfterClientCopyDone(in, out);
        })) {
            PgConnection conn = PgConnection.connect(fake.config()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            List<Long> commits = new CopyOnWriteArrayList<>();
            try {
                LogicalReplicationStream s = start(conn, commits, st -> {});
                awaitCommits(commits, txs);
                s.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
                assertEquals(ends(0, txs), commits, "every commit, in order");
                // Read as it came, this is one read per write or two (~40-80); coalesced, a handful.
                assertTrue(s.socketReads() <= 12, "socket reads while streaming: " + s.socketReads());
            } finally {
                conn.close();
            }
        }
    }

    @Test
    void aChangeAfterAQuietSpellIsStillRead() throws Exception {
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.enterCopyBoth(in, out);
            writeTx(out, 0);
            Thread.sleep(3 * PAUSE.toMillis()); // the pause is over long before: reading must be back on
            writeTx(out, 1);
            FakeWalSender.finishAfterClientCopyDone(in, out);
        })) {
            PgConnection conn = PgConnection.connect(fake.config()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            List<Long> commits = new CopyOnWriteArrayList<>();
            try {
                LogicalReplicationStream s = start(conn, commits, st -> {});
                awaitCommits(commits, 2);
                assertEquals(ends(0, 2), commits, "the second transaction was read after the pause");
                s.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } finally {
                conn.close();
            }
        }
    }

    @Test
    void theApplicationsPauseOutlastsTheCoalescingPause() throws Exception {
        CompletableFuture<Void> secondWritten = new CompletableFuture<>();
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.readUntil(in, 'Q');
            // CopyBothResponse and the whole of tx 0 in one read: its commit and the coalescing pause come from it.
            writeAtOnce(out, FakeBackend.msg('W', new byte[] {0, 0, 0}), begin(0), commit(0));
            Thread.sleep(10);
            writeTx(out, 1); // buffered in the socket while the client is paused
            secondWritten.complete(null);
            FakeWalSender.finishAfterClientCopyDone(in, out);
        })) {
            PgConnection conn = PgConnection.connect(fake.config()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            List<Long> commits = new CopyOnWriteArrayList<>();
            try {
                // Paused from a task that runs after the read that brought tx 0 started the coalescing pause:
                // the pause timer that ends ours must not end the application's.
                LogicalReplicationStream s = start(conn, commits, st -> {
                    if (commits.size() == 1) st.eventLoop().execute(st::pauseReading);
                });
                awaitCommits(commits, 1);
                secondWritten.get(10, TimeUnit.SECONDS);
                Thread.sleep(4 * PAUSE.toMillis());
                assertEquals(ends(0, 1), commits, "nothing read while the application pauses");
                s.resumeReading();
                awaitCommits(commits, 2);
                assertEquals(ends(0, 2), commits, "read again after resumeReading");
                s.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } finally {
                conn.close();
            }
        }
    }
}
