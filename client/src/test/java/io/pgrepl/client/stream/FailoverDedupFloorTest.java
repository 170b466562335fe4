package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgrepl.client.FakeBackend;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import io.pgrepl.codec.pgoutput.CommitMessage;
import org.junit.jupiter.api.Test;

/**
 * The de-duplication floor must not carry over a promotion past the point
 * where the old timeline ended. FAKE walsender, because no real pair of servers produces on
 * demand a promotion after the client acknowledged WAL the standby never received (it needs a
 * failover without synchronized_standby_slots, timed inside one transaction's replication).
 * Connection 1 (timeline 1) sends a transaction ending at 0/3000 and waits until the client
 * reports it flushed, then drops; connection 2 says timeline 2 branched off timeline 1 at 0/2000
 * and sends a resent common-history transaction (ends 0/1FF0) and the new primary's own one
 * (final LSN 0/2800, ends 0/2900: below what was acknowledged, after the branch point), then
 * one above everything (0/4100) whose acknowledgement tells the fake that the client is through.
 */
class FailoverDedupFloorTest {
    private static final String SYSTEM = "7000000000000000001";

    private static byte[] begin(long finalLsn, int xid) {
        return ByteBuffer.allocate(21).put((byte) 'B').putLong(finalLsn).putLong(0).putInt(xid).array();
    }

    private static byte[] commit(long commitLsn, long endLsn) {
        return ByteBuffer.allocate(26).put((byte) 'C').put((byte) 0).putLong(commitLsn).putLong(endLsn).putLong(0).array();
    }

    private static void transaction(DataOutputStream out, long finalLsn, long endLsn, int xid) throws IOException {
        out.write(FakeWalSender.xlogData(finalLsn, begin(finalLsn, xid)));
        out.write(FakeWalSender.xlogData(finalLsn, commit(finalLsn, endLsn)));
        out.flush();
    }

    private static byte[] errorFields(String... codeValue) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < codeValue.length; i += 2) {
            o.write(codeValue[i].charAt(0));
            o.writeBytes(codeValue[i + 1].getBytes(java.nio.charset.StandardCharsets.UTF_8));
            o.write(0);
        }
        o.write(0);
        return o.toByteArray();
    }

    /** Reads the client's standby status updates until one reports {@code lsn} flushed (or, {@code written}, received). */
    private static void awaitStatus(DataInputStream in, long lsn, boolean written) throws IOException {
        while (true) {
            byte[] m = FakeWalSender.readUntil(in, 'd');
            ByteBuffer b = ByteBuffer.wrap(m, 1, m.length - 1);
            if (b.get() != 'r') continue;
            long write = b.getLong();
            long flush = b.getLong();
            if (written ? Long.compareUnsigned(write, lsn) >= 0 : flush == lsn) return;
        }
    }

    private static List<Long> run(String secondSystem, long secondTimeline, String history) throws Exception {
        AtomicInteger connection = new AtomicInteger();
        List<Long> commits = new CopyOnWriteArrayList<>();
        java.util.concurrent.CompletableFuture<Void> seen = new java.util.concurrent.CompletableFuture<>();
        try (FakeWalSender fake = new FakeWalSender(2, (in, out) -> {
            if (connection.incrementAndGet() == 1) {
                FakeWalSender.answerPublicationCheck(in, out);
                FakeWalSender.enterCopyBoth(in, out);
                transaction(out, 0x2F00, 0x3000, 700);
                awaitStatus(in, 0x3000, false);
                // the primary is gone: its walsender ends as pg_terminate_backend ends one
                out.write(FakeBackend.msg('E', errorFields("S", "FATAL", "V", "FATAL", "C", "57P01",
                        "M", "terminating connection due to administrator command")));
                out.flush();
                throw new FakeBackend.HangUp();
            }
            String q = new String(FakeWalSender.readUntil(in, 'Q'), java.nio.charset.StandardCharsets.UTF_8);
            if (!q.contains("pg_get_publication_tables")) throw new AssertionError(q);
            out.write(FakeBackend.msg('C', FakeBackend.cstrings("SELECT 1")));
            out.write(FakeBackend.msg('Z', new byte[] {'I'}));
            out.flush();
            FakeWalSender.answerIdentifySystem(in, out, secondSystem, secondTimeline);
            if (history != null) FakeWalSender.answerTimelineHistory(in, out, secondTimeline, history);
            FakeWalSender.enterCopyBoth(in, out);
            transaction(out, 0x1F00, 0x1FF0, 690); // resent: committed before the branch point
            transaction(out, 0x2800, 0x2900, 701); // the new primary's own
            transaction(out, 0x4000, 0x4100, 702); // above everything: delivered in every case
            awaitStatus(in, 0x4100, false);
            seen.complete(null);
            FakeWalSender.finishAfterClientCopyDone(in, out);
        })) {
            ReconnectingLogicalStream r = ReconnectingLogicalStream.start(fake.config(),
                    LogicalReplicationOptions.builder("s1").publications("pub").autoAcknowledge(true)
                            .statusInterval(Duration.ofMillis(20)).build(),
                    new LogicalStreamHandler() {
                        @Override
                        public void onCommit(CommitMessage m) {
                            commits.add(m.endLsn());
                        }
                    }, new ReconnectPolicy(Duration.ofMillis(10), Duration.ofMillis(10), 1, 0, 3));
            seen.get(10, TimeUnit.SECONDS); // the client received everything of connection 2
            r.stop().toCompletableFuture().get(10, TimeUnit.SECONDS);
            fake.done.get(10, TimeUnit.SECONDS);
        }
        return commits;
    }

    @Test
    void afterAPromotionTheNewPrimarysTransactionsBelowTheOldFloorAreDelivered() throws Exception {
        List<Long> commits = run(SYSTEM, 2, "1\t0/2000\tno recovery target specified\n");
        assertEquals(List.of(0x3000L, 0x2900L, 0x4100L), commits, "the resent 0/1FF0 skipped, the new 0/2900 delivered");
    }

    @Test
    void onTheSameTimelineTheFloorStillSkipsResends() throws Exception {
        List<Long> commits = run(SYSTEM, 1, null);
        // 0/2900 is below what was acknowledged on the same history: a resend, skipped
        assertEquals(List.of(0x3000L, 0x4100L), commits);
    }

    @Test
    void anotherClusterKeepsNothingOfTheFloor() throws Exception {
        List<Long> commits = run("7999999999999999999", 1, null);
        assertEquals(List.of(0x3000L, 0x1FF0L, 0x2900L, 0x4100L), commits, "LSNs of another cluster are not comparable");
    }
}
