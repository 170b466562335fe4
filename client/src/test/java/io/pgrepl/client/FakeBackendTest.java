package io.pgrepl.client;

import io.pgrepl.client.config.SslMode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.backend.ErrorFields;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The client against a FAKE backend ({@link FakeBackend}): hostile or broken server behaviour
 * that a real PostgreSQL server cannot be made to produce.
 */
class FakeBackendTest {
    private static Throwable failure(CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void bytesBufferedAfterTheSslAnswerAbortTheConnection() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            o.write('S');
            o.writeBytes(FakeBackend.auth(0, new byte[0])); // injected plaintext before the handshake
            out.write(o.toByteArray());
        })) {
            Throwable t = failure(PgConnection.connect(fake.config().sslMode(SslMode.REQUIRE).build()));
            PgClientException e = assertInstanceOf(PgClientException.class, t);
            assertEquals(PgClientException.Kind.PROTOCOL, e.kind());
            assertTrue(e.getMessage().contains("CVE-2021-23222"), e.getMessage());
        }
    }

    @Test
    void errorAnswerToSslRequestIsNotShown() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(FakeBackend.msg('E', FakeBackend.fields("S", "FATAL", "C", "08P01", "M", "click evil.example to log in")));
        })) {
            Throwable t = failure(PgConnection.connect(fake.config().sslMode(SslMode.REQUIRE).build()));
            PgClientException e = assertInstanceOf(PgClientException.class, t);
            assertEquals(PgClientException.Kind.TLS, e.kind());
            assertFalse(e.getMessage().contains("evil"), e.getMessage());
        }
    }

    @Test
    void sslmodeRequireRefusesAServerWithoutSsl() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write('N');
        })) {
            PgClientException e = assertInstanceOf(PgClientException.class,
                    failure(PgConnection.connect(fake.config().sslMode(SslMode.REQUIRE).build())));
            assertTrue(e.getMessage().contains("does not support SSL"), e.getMessage());
        }
    }

    @Test
    void errorBeforeAuthenticationFailsTheConnectWithItsSqlState() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(FakeBackend.msg('E', FakeBackend.fields("S", "FATAL", "V", "FATAL", "C", "28000",
                    "M", "no pg_hba.conf entry", "X", "unknown field code is ignored")));
        })) {
            PgException e = assertInstanceOf(PgException.class, failure(PgConnection.connect(fake.config().build())));
            assertEquals("28000", e.sqlState());
            assertEquals("FATAL", e.severity());
            assertEquals("FATAL 28000: no pg_hba.conf entry", e.getMessage());
        }
    }

    @Test
    void truncatedAuthenticationFrameIsMalformed() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(new byte[] {'R', 0, 0, 0, 6, 0, 0}); // code needs 4 bytes, only 2
        })) {
            MalformedMessageException e = assertInstanceOf(MalformedMessageException.class,
                    failure(PgConnection.connect(fake.config().build())));
            assertEquals("Authentication", e.messageType());
        }
    }

    @Test
    void hostileFrameLengthFailsAtOnce() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(new byte[] {'R', 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        })) {
            long t0 = System.nanoTime();
            assertInstanceOf(MalformedMessageException.class,
                    failure(PgConnection.connect(fake.config().maxFrameSize(1 << 20).build())));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(4), "waited for the frame instead of failing");
        }
    }

    @Test
    void gssapiIsRefusedClearly() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(FakeBackend.auth(7, new byte[0]));
        })) {
            AuthenticationException e = assertInstanceOf(AuthenticationException.class,
                    failure(PgConnection.connect(fake.config().build())));
            assertEquals(AuthenticationException.Reason.UNSUPPORTED_METHOD, e.reason());
        }
    }

    @Test
    void authenticationOkBeforeScramCompletesIsRefused() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(FakeBackend.auth(10, FakeBackend.cstrings("SCRAM-SHA-256", "")));
            out.flush();
            byte[] initial = FakeBackend.readTyped(in);
            assertEquals('p', initial[0]);
            out.write(FakeBackend.startupOk("17.6")); // skips SASLContinue/SASLFinal
        })) {
            Throwable t = failure(PgConnection.connect(fake.config().build()));
            assertInstanceOf(AuthenticationException.class, t);
            assertFalse(t.getMessage().contains("pw-secret"));
        }
    }

    @Test
    void cleartextPasswordThenQueryWithAsynchronousMessagesInBetween() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            String startup = new String(FakeBackend.readUntyped(in), StandardCharsets.UTF_8);
            seen.add(startup.contains("client_encoding\0UTF8\0") ? "utf8" : "no-utf8");
            out.write(FakeBackend.auth(3, new byte[0]));
            out.flush();
            byte[] p = FakeBackend.readTyped(in);
            seen.add(new String(p, 1, p.length - 2, StandardCharsets.UTF_8));
            out.write(FakeBackend.startupOk("16.10 (Debian)"));
            out.flush();
            byte[] q = FakeBackend.readTyped(in);
            seen.add(new String(q, 1, q.length - 2, StandardCharsets.UTF_8));
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            o.writeBytes(FakeBackend.msg('N', FakeBackend.fields("S", "NOTICE", "C", "00000", "M", "hello")));
            o.writeBytes(FakeBackend.msg('T', new byte[] {0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 0, 0, 0, 0, 0}));
            o.writeBytes(FakeBackend.msg('S', FakeBackend.cstrings("TimeZone", "UTC")));
            o.writeBytes(FakeBackend.msg('D', new byte[] {0, 1, 0, 0, 0, 2, 'h', 'i'}));
            o.writeBytes(FakeBackend.msg('D', new byte[] {0, 1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}));
            o.writeBytes(FakeBackend.msg('C', FakeBackend.cstrings("SELECT 2")));
            o.writeBytes(FakeBackend.msg('Z', new byte[] {'I'}));
            out.write(o.toByteArray());
        })) {
            PgConnection c = await(PgConnection.connect(fake.config().build()));
            List<ErrorFields> notices = new CopyOnWriteArrayList<>();
            c.onNotice(notices::add);
            QueryResult r = await(c.query("SELECT a"));
            assertEquals(List.of(new Column("a", 25)), r.columns());
            assertEquals("hi", r.rows().get(0).get(0));
            assertTrue(r.rows().get(1).isNull(0));
            assertEquals("SELECT 2", r.commandTag());
            assertEquals("hello", notices.get(0).message());
            assertEquals("UTC", c.parameters().get("TimeZone"));
            assertEquals(16, c.serverMajor());
            assertEquals(12345, c.backendPid());
            assertEquals(List.of("utf8", "pw-secret", "SELECT a"), seen);
            c.close();
        }
    }

    @Test
    void dataRowDisagreeingWithRowDescriptionFailsTheQueryAndConnection() throws Exception {
        try (FakeBackend fake = new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(FakeBackend.startupOk("17.6"));
            out.flush();
            FakeBackend.readTyped(in);
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            o.writeBytes(FakeBackend.msg('T', new byte[] {0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 0, 0, 0, 0, 0}));
            o.writeBytes(FakeBackend.msg('D', new byte[] {0, 2, 0, 0, 0, 0, 0, 0, 0, 0}));
            out.write(o.toByteArray());
        })) {
            PgConnection c = await(PgConnection.connect(fake.config().build()));
            PgClientException e = assertInstanceOf(PgClientException.class, failure(c.query("SELECT a")));
            assertEquals(PgClientException.Kind.PROTOCOL, e.kind());
            assertFalse(c.isOpen());
            assertInstanceOf(PgClientException.class, failure(c.query("SELECT 1")));
        }
    }

    @Test
    void configToStringNeverShowsThePassword() {
        ConnectionConfig cfg = ConnectionConfig.builder().user("u").password("pw-secret").build();
        assertFalse(cfg.toString().contains("pw-secret"));
        assertTrue(cfg.toString().contains("<redacted>"));
    }
}
