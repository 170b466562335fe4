package io.pgrepl.client.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgrepl.client.config.ConnInfoException;
import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.TargetSessionAttrs;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** libpq's multi-host forms (host/hostaddr/port lists, URIs with several hosts), and naming typos. */
class MultiHostConnInfoTest {
    private static final String SECRET = "S3cr3t-Pw";

    @Test
    void keywordListsPairHostsWithPorts() {
        assertEquals(List.of(new HostSpec("a", null, 5433), new HostSpec("b", null, 5434)),
                ConnInfo.parse("host=a,b port=5433,5434").hosts());
        // One port for every host.
        assertEquals(List.of(new HostSpec("a", null, 6000), new HostSpec("b", null, 6000)),
                ConnInfo.parse("host=a,b port=6000").hosts());
        // No port: the default for each; an empty entry: the default for that one.
        assertEquals(List.of(new HostSpec("a", null, 5432), new HostSpec("b", null, 5432)),
                ConnInfo.parse("host=a,b").hosts());
        assertEquals(List.of(new HostSpec("a", null, 5432), new HostSpec("b", null, 7000)),
                ConnInfo.parse("host=a,b port=,7000").hosts());
        // An empty host entry is localhost.
        assertEquals(List.of(new HostSpec("localhost", null, 1), new HostSpec("b", null, 2)),
                ConnInfo.parse("host=,b port=1,2").hosts());
    }

    @Test
    void hostaddrListsPairWithHostsOrStandAlone() {
        assertEquals(List.of(new HostSpec("db1", "10.0.0.1", 5432), new HostSpec("db2", "10.0.0.2", 5432)),
                ConnInfo.parse("host=db1,db2 hostaddr=10.0.0.1,10.0.0.2").hosts());
        assertEquals(List.of(new HostSpec("10.0.0.1", "10.0.0.1", 1), new HostSpec("::1", "::1", 2)),
                ConnInfo.parse("hostaddr=10.0.0.1,::1 port=1,2").hosts());
        assertEquals("could not match 2 host names to 1 hostaddr values",
                assertThrows(ConnInfoException.class, () -> ConnInfo.parse("host=a,b hostaddr=10.0.0.1")).getMessage());
        assertEquals("could not match 3 port numbers to 2 hosts",
                assertThrows(ConnInfoException.class, () -> ConnInfo.parse("host=a,b port=1,2,3")).getMessage());
    }

    @Test
    void uriWithSeveralHosts() {
        ConnInfo ci = ConnInfo.parse("postgresql://u:" + SECRET + "@h1:5433,h2,[::1]:5435/db?target_session_attrs=read-write");
        assertEquals(List.of(new HostSpec("h1", null, 5433), new HostSpec("h2", null, 5432), new HostSpec("::1", null, 5435)),
                ci.hosts());
        assertEquals(Optional.of("h1,h2,::1"), ci.host());
        assertEquals(Optional.of("5433,,5435"), ci.get("port"));
        assertEquals(Optional.of("db"), ci.dbname());
        assertEquals(Optional.of(SECRET), ci.password());
        assertEquals(TargetSessionAttrs.READ_WRITE, ci.targetSessionAttrs());
        assertEquals(List.of(new HostSpec("a", null, 5432), new HostSpec("b", null, 5432)),
                ConnInfo.parse("postgres://a,b").hosts());
    }

    @Test
    void sessionAttributesAndLoadBalancing() {
        for (TargetSessionAttrs t : TargetSessionAttrs.values()) {
            assertEquals(t, ConnInfo.parse("host=a,b target_session_attrs=" + t.keyword()).targetSessionAttrs());
        }
        assertEquals(List.of("any", "read-write", "read-only", "primary", "standby", "prefer-standby"),
                List.of(TargetSessionAttrs.values()).stream().map(TargetSessionAttrs::keyword).toList());
        assertEquals(TargetSessionAttrs.ANY, ConnInfo.parse("host=a").targetSessionAttrs());
        assertEquals(LoadBalanceHosts.RANDOM, ConnInfo.parse("host=a,b load_balance_hosts=random").loadBalanceHosts());
        assertEquals(LoadBalanceHosts.DISABLE, ConnInfo.parse("host=a,b").loadBalanceHosts());
        assertEquals("invalid target_session_attrs value: \"master\" (expected any, read-write, read-only, primary,"
                        + " standby or prefer-standby)",
                assertThrows(ConnInfoException.class, () -> ConnInfo.parse("target_session_attrs=master")).getMessage());
    }

    @Test
    void typoIsNamedWithASuggestion() {
        assertEquals("invalid URI query parameter \"sslmdoe\" (did you mean \"sslmode\"?)",
                assertThrows(ConnInfoException.class,
                        () -> ConnInfo.parse("postgresql://u:" + SECRET + "@h/db?sslmdoe=require")).getMessage());
        assertEquals("invalid connection option \"sslmdoe\" (did you mean \"sslmode\"?)",
                assertThrows(ConnInfoException.class,
                        () -> ConnInfo.parse("host=h password=" + SECRET + " sslmdoe=require")).getMessage());
        assertEquals("invalid URI query parameter \"target_session_attr\" (did you mean \"target_session_attrs\"?)",
                assertThrows(ConnInfoException.class,
                        () -> ConnInfo.parse("postgresql://h/db?target_session_attr=any")).getMessage());
    }

    @Test
    void unknownTextFarFromAnyNameIsNotEchoed() {
        // "password=my Tail0fSecret=x" splits the password; the tail must not be shown.
        ConnInfoException e = assertThrows(ConnInfoException.class, () -> ConnInfo.parse("host=h password=my Tail0fSecret=x"));
        assertFalse(e.getMessage().contains("Tail0fSecret"), e.getMessage());
        assertEquals("invalid connection option at position 19", e.getMessage());
    }

    @Test
    void jdbcUrlSaysToDropThePrefix() {
        ConnInfoException e = assertThrows(ConnInfoException.class,
                () -> ConnInfo.parse("jdbc:postgresql://h:5432/db?user=u&password=" + SECRET));
        assertEquals("a JDBC URL is not a libpq connection string: drop the \"jdbc:\" prefix"
                + " (postgresql://user@host:port/dbname?param=value)", e.getMessage());
        assertFalse(e.getMessage().contains(SECRET));
    }
}
