package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A refused TCP connect, through the real transport, reads as psql says it (a library user gets it too). */
class ConnectFailuresTest {
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void refusedNamesHostPortAndHint() throws Exception {
        int port = closedPort();
        ExecutionException e = assertThrows(ExecutionException.class, () -> PgConnection.connect(
                ConnectionConfig.parse("postgresql://127.0.0.1:" + port + "/x?sslmode=disable")).toCompletableFuture()
                .get(30, TimeUnit.SECONDS));
        PgClientException ce = assertInstanceOf(PgClientException.class, e.getCause());
        assertEquals(PgClientException.Kind.CONNECTION, ce.kind());
        assertEquals("could not connect to server at \"127.0.0.1\", port " + port + ": Connection refused\n"
                + ConnectFailures.HINT, ce.getMessage());
        assertInstanceOf(ConnectException.class, ce.getCause(), "the transport's exception stays the cause");
    }

    @Test
    void transportWordingsMapToTheSystemsWords() {
        assertEquals("Connection refused", ConnectFailures.reason(new ConnectException("finishConnect(..) failed with error(-111)")));
        assertEquals("Connection refused", ConnectFailures.reason(new ConnectException("Connection refused: /127.0.0.1:5432")));
        assertEquals("No route to host", ConnectFailures.reason(new ConnectException("finishConnect(..) failed: No route to host")));
        assertEquals("Permission denied", ConnectFailures.reason(new ConnectException("connect(..) failed: Permission denied: /10.0.0.1:5432")));
        assertTrue(ConnectFailures.of("nosuch.invalid", 5432, new java.net.UnknownHostException("nosuch.invalid")).getMessage()
                .equals("could not translate host name \"nosuch.invalid\" to address: Name or service not known"));
    }
}
