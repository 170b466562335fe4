package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * NegotiateProtocolVersion cases no real server produces on demand (a middleware-style 'v' after
 * AuthenticationOk, options we never sent, an "upgrade"), against a FAKE backend
 * ({@link FakeBackend}). The real-server cases (PG18 accepting 3.2, PG10-17 answering minor 0)
 * are in the integration tests.
 */
class FakeProtocolNegotiationTest {
    private static Throwable failure(CompletionStage<?> stage) {
        return assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS)).getCause();
    }

    private static byte[] negotiate(int minor, String... options) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(ByteBuffer.allocate(8).putInt(minor).putInt(options.length).array());
        o.writeBytes(FakeBackend.cstrings(options));
        return FakeBackend.msg('v', o.toByteArray());
    }

    /** AuthenticationOk, an optional 'v' after it, a 32-byte BackendKeyData, ReadyForQuery. */
    private static byte[] okWithLongKey(byte[] afterOk) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(FakeBackend.auth(0, new byte[0]));
        o.writeBytes(afterOk);
        byte[] key = new byte[4 + 32];
        key[3] = 7;
        o.writeBytes(FakeBackend.msg('K', key));
        o.writeBytes(FakeBackend.msg('S', FakeBackend.cstrings("server_version", "18.1")));
        o.writeBytes(FakeBackend.msg('Z', new byte[] {'I'}));
        return o.toByteArray();
    }

    @Test
    void startupCodeFollowsMaxProtocolVersion() throws Exception {
        for (ProtocolVersion max : List.of(ProtocolVersion.V3_0, ProtocolVersion.V3_2)) {
            AtomicInteger code = new AtomicInteger();
            try (FakeBackend fake = new FakeBackend((in, out) -> {
                code.set(ByteBuffer.wrap(FakeBackend.readUntyped(in)).getInt());
                out.write(FakeBackend.startupOk("17.6"));
            })) {
                try (PgConnection c = PgConnection.connect(fake.config().maxProtocolVersion(max).build())
                        .toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                    assertEquals(max, c.protocolVersion());
                }
            }
            assertEquals(max == ProtocolVersion.V3_2 ? 196610 : 196608, code.get());
        }
    }

    @Test
    void requestedProtocolOptionTheServerIgnoresIsReportedAfterAuthenticationOk() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            String startup = new String(FakeBackend.readUntyped(in), StandardCharsets.UTF_8);
            assertTrue(startup.contains("_pq_.example\0on\0"), startup);
            out.write(okWithLongKey(negotiate(196610, "_pq_.example"))); // full code, as servers send it
        })) {
            try (PgConnection c = PgConnection.connect(fake.config().maxProtocolVersion(ProtocolVersion.V3_2)
                    .startupParameter("_pq_.example", "on").build()).toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                assertEquals(ProtocolVersion.V3_2, c.protocolVersion());
                assertEquals(List.of("_pq_.example"), c.unsupportedProtocolOptions());
                assertEquals(32, c.cancelKeyLength());
                assertEquals(7, c.backendPid());
            }
        }
    }

    @Test
    void optionNeverRequestedIsAProtocolViolation() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(negotiate(0, "_pq_.surprise"));
        })) {
            PgClientException e = assertInstanceOf(PgClientException.class,
                    failure(PgConnection.connect(fake.config().maxProtocolVersion(ProtocolVersion.V3_2).build())));
            assertEquals(PgClientException.Kind.PROTOCOL, e.kind());
            assertTrue(e.getMessage().contains("which was not requested"), e.getMessage());
        }
    }

    @Test
    void newerOrReservedMinorVersionIsAProtocolViolation() throws Exception {
        for (int minor : new int[] {1, 3}) {
            try (FakeBackend fake = new FakeBackend((in, out) -> {
                FakeBackend.readUntyped(in);
                out.write(negotiate(minor));
            })) {
                PgClientException e = assertInstanceOf(PgClientException.class,
                        failure(PgConnection.connect(fake.config().maxProtocolVersion(minor == 1 ? ProtocolVersion.V3_2 : ProtocolVersion.V3_0).build())));
                assertEquals(PgClientException.Kind.PROTOCOL, e.kind(), e.getMessage());
            }
        }
    }

    @Test
    void longCancelKeyUnderProtocol30IsAProtocolViolation() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(okWithLongKey(new byte[0]));
        })) {
            PgClientException e = assertInstanceOf(PgClientException.class, failure(PgConnection.connect(fake.config().build())));
            assertTrue(e.getMessage().contains("cancel key of 32 bytes under protocol 3.0"), e.getMessage());
        }
    }
}
