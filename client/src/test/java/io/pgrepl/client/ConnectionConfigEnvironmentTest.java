package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.config.ConnInfoException;
import io.pgrepl.client.config.SslMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** libpq's environment defaults and the libpq 18 protocol keywords, through {@link ConnectionConfig#parse}. */
class ConnectionConfigEnvironmentTest {
    private static final Map<String, String> ENV = Map.ofEntries(
            Map.entry("PGHOST", "env-host"), Map.entry("PGHOSTADDR", "10.1.2.3"), Map.entry("PGPORT", "6543"),
            Map.entry("PGDATABASE", "envdb"), Map.entry("PGUSER", "envuser"), Map.entry("PGPASSFILE", "/env/pgpass"),
            Map.entry("PGSSLMODE", "verify-full"), Map.entry("PGSSLROOTCERT", "/env/root.crt"),
            Map.entry("PGSSLCERT", "/env/client.crt"), Map.entry("PGSSLKEY", "/env/client.key"),
            Map.entry("PGAPPNAME", "env-app"), Map.entry("PGCONNECT_TIMEOUT", "7"),
            Map.entry("PGCHANNELBINDING", "require"), Map.entry("PGREQUIREAUTH", "scram-sha-256"),
            Map.entry("PGSSLNEGOTIATION", "direct"), Map.entry("PGMAXPROTOCOLVERSION", "latest"));

    @Test
    void environmentFillsWhatTheStringLeavesOut() {
        ConnectionConfig c = ConnectionConfig.parse("", ENV::get);
        assertEquals("env-host", c.host());
        assertEquals("10.1.2.3", c.hostAddress());
        assertEquals(6543, c.port());
        assertEquals("envdb", c.database());
        assertEquals("envuser", c.user());
        assertEquals(Path.of("/env/pgpass"), c.passFile());
        assertEquals(SslMode.VERIFY_FULL, c.sslMode());
        assertEquals(Path.of("/env/root.crt"), c.sslRootCert());
        assertEquals(Path.of("/env/client.crt"), c.sslCert());
        assertEquals(Path.of("/env/client.key"), c.sslKey());
        assertEquals("env-app", c.applicationName());
        assertEquals(Duration.ofSeconds(7), c.connectTimeout());
        assertEquals("require", c.channelBinding());
        assertEquals("scram-sha-256", c.requireAuth());
        assertEquals(SslNegotiation.DIRECT, c.sslNegotiation());
        assertEquals(ProtocolVersion.V3_2, c.maxProtocolVersion());
    }

    @Test
    void explicitParametersWin() {
        ConnectionConfig c = ConnectionConfig.parse("postgresql://alice@db.example:5433/app?sslmode=disable&application_name=mine"
                + "&max_protocol_version=3.0&sslnegotiation=postgres", ENV::get);
        assertEquals("db.example", c.host());
        assertEquals(5433, c.port());
        assertEquals("app", c.database());
        assertEquals("alice", c.user());
        assertEquals(SslMode.DISABLE, c.sslMode());
        assertEquals("mine", c.applicationName());
        assertEquals(ProtocolVersion.V3_0, c.maxProtocolVersion());
        // Not given in the string: still from the environment, as in libpq.
        assertEquals("10.1.2.3", c.hostAddress());
    }

    @Test
    void emptyEnvironmentKeepsTheBuiltInDefaults() {
        ConnectionConfig c = ConnectionConfig.parse("user=bob", k -> null);
        assertEquals("localhost", c.host());
        assertNull(c.hostAddress());
        assertEquals(5432, c.port());
        assertEquals("bob", c.database());
        assertEquals(SslMode.PREFER, c.sslMode());
        assertEquals(ProtocolVersion.V3_0, c.minProtocolVersion());
        assertEquals(ProtocolVersion.V3_0, c.maxProtocolVersion());
    }

    @Test
    void badEnvironmentValueIsAnErrorNamingTheParameter() {
        ConnInfoException e = assertThrows(ConnInfoException.class, () -> ConnectionConfig.parse("user=bob", Map.of("PGSSLMODE", "sometimes")::get));
        assertTrue(e.getMessage().contains("sslmode"), e.getMessage());
    }

    @Test
    void protocolKeywordsLikeLibpq18() {
        ConnectionConfig none = ConnectionConfig.parse("user=u", k -> null);
        assertEquals(ProtocolVersion.V3_0, none.maxProtocolVersion());
        // A higher minimum with no maximum asks for the latest.
        ConnectionConfig min32 = ConnectionConfig.parse("user=u min_protocol_version=3.2", k -> null);
        assertEquals(ProtocolVersion.V3_2, min32.minProtocolVersion());
        assertEquals(ProtocolVersion.V3_2, min32.maxProtocolVersion());
        assertEquals(ProtocolVersion.V3_2, ConnectionConfig.parse("user=u max_protocol_version=latest", k -> null).maxProtocolVersion());
        assertThrows(ConnInfoException.class, () -> ConnectionConfig.parse("user=u min_protocol_version=3.2 max_protocol_version=3.0", k -> null));
        assertThrows(IllegalArgumentException.class, () -> ConnectionConfig.builder().minProtocolVersion(ProtocolVersion.V3_2)
                .maxProtocolVersion(ProtocolVersion.V3_0).build());
        // toBuilder keeps "max unset", so raising the minimum later still works.
        assertEquals(ProtocolVersion.V3_2, none.toBuilder().minProtocolVersion(ProtocolVersion.V3_2).build().maxProtocolVersion());
    }

    @Test
    void fallbackApplicationNameNeverOverridesApplicationName() {
        assertEquals("app", ConnectionConfig.parse("user=u application_name=app fallback_application_name=fb", k -> null).applicationName());
        assertEquals("fb", ConnectionConfig.parse("user=u fallback_application_name=fb", k -> null).applicationName());
    }

    @Test
    void sslpasswordIsKeptAndNeverPrinted() {
        ConnectionConfig c = ConnectionConfig.parse("user=u sslcert=/c.crt sslkey=/c.key sslpassword=TopSecretKeyPass", k -> null);
        assertEquals("TopSecretKeyPass", c.sslPassword());
        assertTrue(!c.toString().contains("TopSecretKeyPass"), c.toString());
    }
}
