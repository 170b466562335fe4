package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgrepl.client.PgConnection;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.UnknownMessageTypeException;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * pgoutput the decoder rejects is a protocol error, not the handler's: against {@link FakeWalSender}
 * (no real server sends malformed pgoutput on demand).
 */
class StreamFailureKindTest {

    private static Throwable runAgainst(byte[] pgoutput, LogicalStreamHandler handler) throws Exception {
        try (FakeWalSender fake = new FakeWalSender((in, out) -> {
            FakeWalSender.enterCopyBoth(in, out);
            out.write(FakeWalSender.xlogData(0x100, pgoutput));
            out.flush();
            FakeWalSender.finishAfterClientCopyDone(in, out);
        })) {
            PgConnection conn = PgConnection.connect(fake.config()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            try {
                LogicalReplicationStream s = LogicalReplicationStream.start(conn,
                        LogicalReplicationOptions.builder("s1").publications("pub").build(), handler);
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> s.completion().toCompletableFuture().get(10, TimeUnit.SECONDS));
                return e.getCause();
            } finally {
                conn.close();
            }
        }
    }

    @Test
    void unknownPgoutputTypeIsProtocolError() throws Exception {
        Throwable t = runAgainst(new byte[] {'!'}, new LogicalStreamHandler() {});
        ReplicationProtocolException p = assertInstanceOf(ReplicationProtocolException.class, t);
        assertInstanceOf(UnknownMessageTypeException.class, p.getCause());
        assertFalse(p.isTransient(), "the server would resend the same bytes");
    }

    @Test
    void truncatedBeginIsProtocolError() throws Exception {
        Throwable t = runAgainst(new byte[] {'B', 0, 0, 0}, new LogicalStreamHandler() {});
        assertInstanceOf(MalformedMessageException.class, assertInstanceOf(ReplicationProtocolException.class, t).getCause());
    }

    @Test
    void malformedExceptionFromHandlerStaysHandlerFailure() throws Exception {
        byte[] begin = ByteBuffer.allocate(21).put((byte) 'B').putLong(0x200).putLong(0).putInt(700).array();
        MalformedMessageException thrown = new MalformedMessageException("value", 0, "handler decoded a bad value");
        Throwable t = runAgainst(begin, new LogicalStreamHandler() {
            @Override
            public void onBegin(BeginMessage m) {
                throw thrown;
            }
        });
        assertEquals(thrown, assertInstanceOf(ReplicationHandlerException.class, t).getCause());
    }
}
