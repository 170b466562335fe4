package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.FakeBackend;
import io.pgrepl.client.PgConnection;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.replication.XLogData;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A walsender that floods the client with reply-requested keepalives (5,250 of them, interleaved
 * with 2,000 XLogData) neither starves the handler nor the status updates. The flood runs in
 * rounds: after each round the FAKE server waits until a status update confirms the round's last
 * acknowledged commit, so updates are proven to flow <em>during</em> the flood, without any timing
 * assumption. Against {@link FakeWalSender}: no real server floods on demand.
 */
class KeepaliveFloodTest {
    private static final int ROUNDS = 50;
    private static final int TX_PER_ROUND = 20;
    private static final int KEEPALIVES_PER_TX = 5;

    private static long beginLsn(int tx) {
        return 0x1_0000L + tx * 0x100L;
    }

    private static long endLsn(int tx) {
        return beginLsn(tx) + 0x90;
    }

    @Test
    void keepaliveFloodStarvesNeitherTheHandlerNorStatusUpdates() throws Exception {
        List<Long> flushes = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> clientCopyDone = new CompletableFuture<>();
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.enterCopyBoth(in, out);
            Thread reader = new Thread(() -> readStatusUpdates(in, flushes, clientCopyDone), "fake-status-reader");
            reader.setDaemon(true);
            reader.start();
            int tx = 0;
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < TX_PER_ROUND; i++, tx++) {
                    for (int k = 0; k < KEEPALIVES_PER_TX; k++) out.write(FakeWalSender.keepalive(tx == 0 ? 0 : endLsn(tx - 1), true));
                    out.write(FakeWalSender.xlogData(beginLsn(tx), begin(tx)));
                    out.write(FakeWalSender.xlogData(beginLsn(tx) + 0x80, commit(tx)));
                }
                for (int k = 0; k < KEEPALIVES_PER_TX; k++) out.write(FakeWalSender.keepalive(endLsn(tx - 1), true));
                out.flush();
                long wanted = endLsn(tx - 1);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (flushes.isEmpty() || flushes.get(flushes.size() - 1) < wanted) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("round " + round + ": no status update confirmed " + Long.toHexString(wanted));
                    }
                    Thread.sleep(1);
                }
            }
            clientCopyDone.get(30, TimeUnit.SECONDS);
            out.write(FakeBackend.msg('c', new byte[0]));
            out.write(FakeBackend.msg('C', FakeBackend.cstrings("START_REPLICATION")));
            out.write(FakeBackend.msg('Z', new byte[] {'I'}));
            out.flush();
        })) {
            PgConnection conn = PgConnection.connect(fake.config()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            AtomicInteger xlogData = new AtomicInteger();
            List<Long> commits = new ArrayList<>(); // event loop only until the stream is done
            try {
                LogicalReplicationStream s = LogicalReplicationStream.start(conn,
                        LogicalReplicationOptions.builder("s1").publications("pub").confirmIdleKeepalives(false).build(),
                        new LogicalStreamHandler() {
                            private LogicalReplicationStream stream;

                            @Override
                            public void onStarted(LogicalReplicationStream st) {
                                stream = st;
                            }

                            @Override
                            public void onXLogData(XLogData header) {
                                xlogData.incrementAndGet();
                            }

                            @Override
                            public void onCommit(CommitMessage m) {
                                commits.add(m.endLsn());
                                stream.acknowledge(m.endLsn());
                            }
                        });
                long last = endLsn(ROUNDS * TX_PER_ROUND - 1);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (flushes.isEmpty() || flushes.get(flushes.size() - 1) < last) {
                    if (System.nanoTime() > deadline || s.completion().toCompletableFuture().isDone()) break;
                    Thread.sleep(5);
                }
                s.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } finally {
                conn.close();
            }
            int txs = ROUNDS * TX_PER_ROUND;
            assertEquals(2 * txs, xlogData.get(), "the handler got every XLogData");
            List<Long> expected = new ArrayList<>();
            for (int i = 0; i < txs; i++) expected.add(endLsn(i));
            assertEquals(expected, commits, "every commit, in order");
            assertTrue(flushes.size() >= ROUNDS, "at least one status update per round: " + flushes.size());
            long previous = 0;
            for (long f : flushes) {
                assertTrue(f >= previous, "flush went backwards");
                assertTrue(f == 0 || expected.contains(f), "flush " + Long.toHexString(f) + " is an acknowledged commit end");
                previous = f;
            }
            assertEquals(endLsn(txs - 1), previous, "the last acknowledgement was confirmed");
        }
    }

    /** The client's StandbyStatusUpdates until its CopyDone: records each flush position. */
    private static void readStatusUpdates(DataInputStream in, List<Long> flushes, CompletableFuture<Void> copyDone) {
        try {
            while (true) {
                byte[] m = FakeBackend.readTyped(in);
                if (m[0] == 'c') {
                    copyDone.complete(null);
                    return;
                }
                if (m[0] == 'd' && m[1] == 'r') flushes.add(ByteBuffer.wrap(m, 2 + 8, 8).getLong());
            }
        } catch (IOException e) {
            copyDone.completeExceptionally(e);
        }
    }

    private static byte[] begin(int tx) {
        // 'B', final LSN, commit time, xid
        return ByteBuffer.allocate(21).put((byte) 'B').putLong(beginLsn(tx) + 0x80).putLong(0).putInt(1000 + tx).array();
    }

    private static byte[] commit(int tx) {
        // 'C', flags, commit LSN, end LSN, commit time
        return ByteBuffer.allocate(26).put((byte) 'C').put((byte) 0).putLong(beginLsn(tx) + 0x80).putLong(endLsn(tx))
                .putLong(0).array();
    }
}
