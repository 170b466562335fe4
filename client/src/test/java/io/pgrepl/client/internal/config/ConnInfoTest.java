package io.pgrepl.client.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.config.ConnInfoException;
import io.pgrepl.client.config.SslMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConnInfoTest {
    private static final String SECRET = "s3cr3t-Pa55";

    @Test
    void fullUri() {
        ConnInfo ci = ConnInfo.parse("postgresql://alice:" + SECRET + "@db.example.com:6543/orders"
                + "?sslmode=verify-full&application_name=cdc&replication=database");
        assertEquals(List.of("user", "password", "host", "port", "dbname", "sslmode", "application_name", "replication"),
                List.copyOf(ci.asMap().keySet()));
        assertEquals(Optional.of("alice"), ci.user());
        assertEquals(Optional.of(SECRET), ci.password());
        assertEquals(Optional.of("db.example.com"), ci.host());
        assertEquals(6543, ci.port());
        assertEquals(Optional.of("orders"), ci.dbname());
        assertEquals(SslMode.VERIFY_FULL, ci.sslMode());
        assertEquals("database", ci.asMap().get("replication"));
    }

    @Test
    void postgresSchemeAndMinimalForms() {
        assertEquals(Map.of("host", "h"), ConnInfo.parse("postgres://h").asMap());
        assertEquals(Map.of(), ConnInfo.parse("postgresql://").asMap());
        assertEquals(Map.of("dbname", "db"), ConnInfo.parse("postgresql:///db").asMap());
        assertEquals(Map.of("host", "h", "port", "5433"), ConnInfo.parse("postgresql://h:5433").asMap());
        assertEquals(Map.of("user", "u", "host", "h"), ConnInfo.parse("postgresql://u@h").asMap());
        ConnInfo defaults = ConnInfo.parse("postgresql://h");
        assertEquals(5432, defaults.port());
        assertEquals(SslMode.PREFER, defaults.sslMode());
        assertEquals(ChannelBindingMode.PREFER, defaults.channelBinding());
        assertTrue(defaults.requireAuth().isUnrestricted());
    }

    @Test
    void percentDecodingEverywhere() {
        ConnInfo ci = ConnInfo.parse("postgresql://us%40er:p%3Aw%2Fd%20%C3%A9@h/my%20db?application_name=a%26b");
        assertEquals(Optional.of("us@er"), ci.user());
        assertEquals(Optional.of("p:w/d é"), ci.password());
        assertEquals(Optional.of("my db"), ci.dbname());
        assertEquals(Optional.of("a&b"), ci.get("application_name"));
        assertEquals(Optional.of("/var/run/postgresql"),
                ConnInfo.parse("postgresql://%2Fvar%2Frun%2Fpostgresql/db").host());
    }

    @Test
    void ipv6Hosts() {
        ConnInfo ci = ConnInfo.parse("postgresql://[::1]:5433/db");
        assertEquals(Optional.of("::1"), ci.host());
        assertEquals(5433, ci.port());
        assertEquals(Optional.of("fe80::1%eth0"), ConnInfo.parse("postgresql://[fe80::1%eth0]").host());
        assertThrows(ConnInfoException.class, () -> ConnInfo.parse("postgresql://[::1/db"));
        assertThrows(ConnInfoException.class, () -> ConnInfo.parse("postgresql://[::1]x/db"));
    }

    @Test
    void sslTrueIsRequire() {
        assertEquals(SslMode.REQUIRE, ConnInfo.parse("postgresql://h?ssl=true").sslMode());
    }

    @Test
    void queryOverridesAuthority() {
        assertEquals(Optional.of("other"), ConnInfo.parse("postgresql://h/db?dbname=other").dbname());
    }

    @Test
    void keywordValueStrings() {
        ConnInfo ci = ConnInfo.parse("host=localhost port = 5433  dbname='my db' password='it\\'s \\\\ ok'"
                + " user=me\\ too application_name=''");
        assertEquals(Optional.of("localhost"), ci.host());
        assertEquals(5433, ci.port());
        assertEquals(Optional.of("my db"), ci.dbname());
        assertEquals(Optional.of("it's \\ ok"), ci.password());
        assertEquals(Optional.of("me too"), ci.user());
        assertEquals("", ci.asMap().get("application_name"));
        assertEquals(Optional.empty(), ci.get("application_name"));
        assertEquals(Map.of(), ConnInfo.parse("   ").asMap());
    }

    @Test
    void laterValueWins() {
        ConnInfo ci = ConnInfo.parse("port=1 host=h port=2");
        assertEquals(2, ci.port());
        assertEquals(List.of("host", "port"), List.copyOf(ci.asMap().keySet()));
    }

    @Test
    void textOfNeitherFormSaysWhatItLooksLike() {
        assertTrue(assertThrows(ConnInfoException.class, () -> ConnInfo.parse("localhost:5432")).getMessage()
                .startsWith("\"localhost:5432\" looks like host:port, not a connection string: expected a URI"));
        String http = assertThrows(ConnInfoException.class, () -> ConnInfo.parse("http://u:" + SECRET + "@h/db")).getMessage();
        assertTrue(http.startsWith("a http:// URL is not a PostgreSQL connection string"), http);
        assertFalse(http.contains(SECRET), http);
        String word = assertThrows(ConnInfoException.class, () -> ConnInfo.parse(SECRET)).getMessage();
        assertTrue(word.startsWith("a single word is not a connection string"), word);
        assertFalse(word.contains(SECRET), word);
    }

    @Test
    void keywordValueSyntaxErrors() {
        assertEquals("missing \"=\" after the token at position 0 in connection info string",
                assertThrows(ConnInfoException.class, () -> ConnInfo.parse("host localhost")).getMessage());
        ConnInfoException e = assertThrows(ConnInfoException.class,
                () -> ConnInfo.parse("password='" + SECRET));
        assertEquals("unterminated quoted string in connection info string", e.getMessage());
    }

    @Test
    void unknownParametersAreNamedButNoSecretIsEchoed() {
        ConnInfoException e = assertThrows(ConnInfoException.class,
                () -> ConnInfo.parse("host=h pasword=" + SECRET));
        assertEquals("invalid connection option \"pasword\" (did you mean \"password\"?)", e.getMessage());
        e = assertThrows(ConnInfoException.class, () -> ConnInfo.parse("postgresql://u:" + SECRET + "@h?foo=bar"));
        assertEquals("invalid URI query parameter", e.getMessage());
        e = assertThrows(ConnInfoException.class, () -> ConnInfo.of(Map.of("sslmod", "require")));
        assertEquals("invalid connection option \"sslmod\" (did you mean \"sslmode\"?)", e.getMessage());
        e = assertThrows(ConnInfoException.class, () -> ConnInfo.parse("postgresql://u:" + SECRET + "%zz@h"));
        assertFalse(e.getMessage().contains(SECRET));
        assertTrue(e.getMessage().contains("password"), e.getMessage());
        e = assertThrows(ConnInfoException.class, () -> ConnInfo.parse("postgresql://u:" + SECRET + "%00@h"));
        assertFalse(e.getMessage().contains(SECRET));
    }

    @Test
    void unquotedSpaceInPasswordDoesNotEchoItsTail() {
        ConnInfoException e = assertThrows(ConnInfoException.class,
                () -> ConnInfo.parse("host=h password=my Tail0fSecret"));
        assertFalse(e.getMessage().contains("Tail0fSecret"), e.getMessage());
        assertEquals("missing \"=\" after the token at position 19 (which follows the value of \"password\";"
                + " quote values that contain spaces) in connection info string", e.getMessage());
        e = assertThrows(ConnInfoException.class, () -> ConnInfo.parse("password=my Tail0fSecret=x"));
        assertFalse(e.getMessage().contains("Tail0fSecret"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "postgresql://u:Qx/ssTail@h/db", "postgresql://u:12/ssTail@h/db", "postgresql://u:12/ssTail@h",
        "postgres://u:Qx/ssTail@h:5432/db?sslmode=require", "postgresql://u:Qx/ssTail?x@h/db",
        "postgresql://u:12/ssTail?ssTail=x@h/db",
    })
    void reservedCharacterInUriPasswordIsRefusedWithoutEchoingIt(String uri) {
        ConnInfoException e = assertThrows(ConnInfoException.class, () -> ConnInfo.parse(uri));
        String afterScheme = uri.substring(uri.indexOf("://") + 3);
        for (String part : List.of("Qx", "ssTail", ":12", "@h")) {
            if (afterScheme.contains(part)) {
                assertFalse(e.getMessage().contains(part), part + " echoed in: " + e.getMessage());
            }
        }
    }

    @Test
    void reservedCharactersInQueryValuesStillWork() {
        ConnInfo ci = ConnInfo.parse("postgresql://h/db?user=me@example.com&application_name=a/b");
        assertEquals(Optional.of("me@example.com"), ci.user());
        assertEquals(Optional.of("db"), ci.dbname());
        assertEquals(Optional.of("a/b"), ci.get("application_name"));
        assertEquals(Optional.of("pa?s#s"), ConnInfo.parse("postgresql://u:pa?s#s@h/db").password());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "sslmode=foo", "channel_binding=always", "sslnegotiation=tls", "sslsni=2", "replication=physical",
        "port=0", "port=65536", "port=abc", "port=1,2", "host=a,b,c port=1,2", "host=a,b hostaddr=127.0.0.1",
        "port=1,,x", "target_session_attrs=master", "load_balance_hosts=on", "connect_timeout=-1", "connect_timeout=x",
        "require_auth=md5,!password", "require_auth=kerberos", "min_protocol_version=3.1",
        "min_protocol_version=3.2 max_protocol_version=3.0", "client_encoding=LATIN1", "hostaddr=example.com",
        "sslnegotiation=direct", "sslnegotiation=direct sslmode=prefer",
    })
    void invalidValues(String conninfo) {
        ConnInfoException e = assertThrows(ConnInfoException.class, () -> ConnInfo.parse(conninfo + " password=" + SECRET));
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    }

    @Test
    void validValues() {
        ConnInfo ci = ConnInfo.parse("sslmode=require sslnegotiation=direct channel_binding=require "
                + "require_auth=scram-sha-256 connect_timeout=1 replication=TRUE client_encoding=UTF8 "
                + "min_protocol_version=3.0 max_protocol_version=latest hostaddr=::1 sslsni=0");
        assertEquals(ChannelBindingMode.REQUIRE, ci.channelBinding());
        assertEquals(Optional.of(Duration.ofSeconds(2)), ci.connectTimeout());
        assertEquals(Optional.of(0), ci.minProtocolMinor());
        assertEquals(Optional.of(2), ci.maxProtocolMinor());
        assertFalse(ci.requireAuth().isUnrestricted());
        assertEquals(Optional.empty(), ConnInfo.parse("connect_timeout=0").connectTimeout());
    }

    @Test
    void toStringMasksPasswords() {
        ConnInfo ci = ConnInfo.parse("postgresql://u:" + SECRET + "@h?sslpassword=keypass");
        assertFalse(ci.toString().contains(SECRET));
        assertFalse(ci.toString().contains("keypass"));
        assertTrue(ci.toString().contains("host=h"));
    }

    @Test
    void fromMapAndWith() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("host", "h");
        m.put("user", "u");
        ConnInfo ci = ConnInfo.of(m).with("port", "7000");
        assertEquals(7000, ci.port());
        assertThrows(ConnInfoException.class, () -> ci.with("nope", "x"));
        assertThrows(UnsupportedOperationException.class, () -> ci.asMap().put("host", "x"));
    }
}
