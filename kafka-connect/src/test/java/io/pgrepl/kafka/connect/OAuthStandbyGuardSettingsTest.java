package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.auth.OAuthBearerTokenSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OAuth, standby-primary and slot-guard settings turned into client objects (no server needed). */
class OAuthStandbyGuardSettingsTest {
    private static final OAuthBearerTokenSource.Request REQUEST =
            new OAuthBearerTokenSource.Request("db", 5432, "cdc", "app", true);

    private static Map<String, String> base() {
        Map<String, String> m = new HashMap<>();
        m.put("database.url", "postgresql://cdc@standby:5432/app");
        m.put("topic.prefix", "t");
        return m;
    }

    private static String token(OAuthBearerTokenSource s) throws Exception {
        return s.token(REQUEST).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A provider as a user writes one; records what configure() received. */
    public static final class ConfiguredTokens implements OAuthBearerTokenSource, Configurable {
        static volatile Map<String, ?> configured;
        private String token;

        @Override
        public void configure(Map<String, ?> configs) {
            configured = configs;
            token = (String) configs.get("token.prefix") + "-abc";
        }

        @Override
        public CompletionStage<String> token(Request request) {
            return CompletableFuture.completedFuture(token);
        }
    }

    @Test
    void aTokenFileIsReadForEveryConnectionWithoutItsLineEnd(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("token");
        Files.writeString(f, "first-token\n");
        Map<String, String> m = base();
        m.put("database.oauth.token.file", f.toString());
        ConnectionConfig c = new PgreplConnectorConfig(m).connectionConfig();
        assertEquals("first-token", token(c.oauthTokenSource()));
        Files.writeString(f, "rotated-token\r\n");
        assertEquals("rotated-token", token(c.oauthTokenSource()), "read again, not cached");
        Files.write(f, new byte[ConnectOAuth.MAX_TOKEN + 1]);
        Exception tooLong = assertThrows(Exception.class, () -> token(c.oauthTokenSource()));
        assertTrue(String.valueOf(tooLong.getCause()).contains("not a token"), String.valueOf(tooLong.getCause()));
        Files.delete(f);
        Exception missing = assertThrows(Exception.class, () -> token(c.oauthTokenSource()));
        assertTrue(String.valueOf(missing.getCause()).contains("NoSuchFileException"), String.valueOf(missing.getCause()));
    }

    @Test
    void aProviderClassIsMadeOnceAndConfiguredWithItsPrefix() throws Exception {
        Map<String, String> m = base();
        m.put("database.oauth.token.provider.class", ConfiguredTokens.class.getName());
        m.put("database.oauth.token.provider.token.prefix", "tenant7");
        PgreplConnectorConfig config = new PgreplConnectorConfig(m);
        OAuthBearerTokenSource s = config.connectionConfig().oauthTokenSource();
        assertSame(s, config.connectionConfig().oauthTokenSource(), "one instance per config: its cache survives reconnects");
        assertEquals("tenant7-abc", token(s));
        assertEquals("tenant7", ConfiguredTokens.configured.get("token.prefix"));
        assertFalse(ConfiguredTokens.configured.containsKey("database.url"));

        Map<String, String> wrong = base();
        wrong.put("database.oauth.token.provider.class", String.class.getName());
        ConfigException e = assertThrows(ConfigException.class, () -> new PgreplConnectorConfig(wrong).connectionConfig());
        assertTrue(e.getMessage().contains("OAuthBearerTokenSource"), e.getMessage());
        assertNull(new PgreplConnectorConfig(base()).connectionConfig().oauthTokenSource());
    }

    @Test
    void thePrimaryIsAskedOnlyWithTheOptIn() {
        assertNull(StandbySource.primary(new PgreplConnectorConfig(base())));
        Map<String, String> urlOnly = base();
        urlOnly.put("database.primary.url", "postgresql://admin@primary:5432/app");
        ConfigException e = assertThrows(ConfigException.class, () -> StandbySource.primary(new PgreplConnectorConfig(urlOnly)));
        assertTrue(e.getMessage().contains("database.primary.log.standby.snapshot"), e.getMessage());
        Map<String, String> flagOnly = base();
        flagOnly.put("database.primary.log.standby.snapshot", "true");
        assertThrows(ConfigException.class, () -> StandbySource.primary(new PgreplConnectorConfig(flagOnly)));

        Map<String, String> both = new HashMap<>(urlOnly);
        both.put("database.primary.log.standby.snapshot", "true");
        both.put("database.password", "standby-and-primary-pw");
        ConnectionConfig p = StandbySource.primary(new PgreplConnectorConfig(both));
        assertNotNull(p);
        assertEquals("primary", p.host());
        assertEquals("admin", p.user());
        assertEquals("standby-and-primary-pw", p.password(), "database.password when the primary's URL names none");
        assertEquals(io.pgrepl.client.ReplicationMode.NONE, p.replication(), "an ordinary session: it runs a function");

        Map<String, String> badUrl = new HashMap<>(both);
        badUrl.put("database.primary.url", "postgresql://admin:sekrit-pw@primary:notaport/app");
        ConfigException bad = assertThrows(ConfigException.class, () -> new PgreplConnectorConfig(badUrl));
        assertFalse(bad.getMessage().contains("sekrit-pw"), bad.getMessage());
    }

    @Test
    void guardThresholdsMustBeOrdered() {
        assertNull(SlotGuardTask.policy(new PgreplConnectorConfig(base())), "no threshold: no guard");
        Map<String, String> ok = base();
        ok.put("slot.guard.safe.wal.size.warn.bytes", "4000000");
        ok.put("slot.guard.safe.wal.size.fail.bytes", "1000000");
        ok.put("slot.guard.snapshot.action", "ABORT");
        assertNotNull(SlotGuardTask.policy(new PgreplConnectorConfig(ok)));
        Map<String, String> reversed = base();
        reversed.put("slot.guard.retained.wal.warn.bytes", "8000000");
        reversed.put("slot.guard.retained.wal.fail.bytes", "1000000");
        ConfigException e = assertThrows(ConfigException.class, () -> SlotGuardTask.policy(new PgreplConnectorConfig(reversed)));
        assertTrue(e.getMessage().contains("slot.guard") && e.getMessage().contains("out of order"), e.getMessage());
        Map<String, String> negative = base();
        negative.put("slot.guard.retained.wal.fail.bytes", "-1");
        assertThrows(ConfigException.class, () -> new PgreplConnectorConfig(negative));
    }
}
