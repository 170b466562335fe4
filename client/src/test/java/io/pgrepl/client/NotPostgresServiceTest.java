package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.config.SslMode;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A web server on the port instead of PostgreSQL: the error says what psql says
 * ("received invalid response to SSL negotiation: H"), not that someone is in the middle; without
 * SSL ("expected authentication request from server, but received H"), not a frame-length error.
 */
class NotPostgresServiceTest {
    private static Throwable connectFailure(FakeHttpServer http, SslMode mode) {
        ConnectionConfig config = ConnectionConfig.builder().host("127.0.0.1").port(http.port()).user("alice")
                .password("pw-secret").database("db").sslMode(mode).connectTimeout(Duration.ofSeconds(5)).build();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> PgConnection.connect(config).toCompletableFuture().get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    @ParameterizedTest
    @EnumSource(value = SslMode.class, names = {"PREFER", "REQUIRE"})
    void anHttpServerAnsweringTheSslRequestIsAnInvalidResponseNotAnAttack(SslMode mode) throws Exception {
        try (FakeHttpServer http = new FakeHttpServer()) {
            PgClientException e = assertInstanceOf(PgClientException.class, connectFailure(http, mode));
            assertEquals(8, http.served.get(5, TimeUnit.SECONDS), "the server saw an SSLRequest (8 bytes)");
            assertEquals(PgClientException.Kind.PROTOCOL, e.kind());
            assertTrue(e.getMessage().contains("received invalid response to SSL negotiation: H"), e.getMessage());
            assertFalse(e.getMessage().contains("man-in-the-middle"), e.getMessage());
            assertFalse(e.getMessage().contains("CVE"), e.getMessage());
        }
    }

    @Test
    void anHttpServerAnsweringTheStartupMessageIsNamedNotAFramingError() throws Exception {
        try (FakeHttpServer http = new FakeHttpServer()) {
            PgClientException e = assertInstanceOf(PgClientException.class, connectFailure(http, SslMode.DISABLE));
            assertTrue(http.served.get(5, TimeUnit.SECONDS) > 8, "the server saw a StartupMessage");
            assertEquals(PgClientException.Kind.PROTOCOL, e.kind());
            assertTrue(e.getMessage().startsWith("expected authentication request from server, but received H"), e.getMessage());
            assertTrue(e.getMessage().contains("not PostgreSQL"), e.getMessage());
            assertFalse(e.getMessage().contains("frame"), e.getMessage());
            assertFalse(e.getMessage().contains("pw-secret"), e.getMessage());
        }
    }
}
