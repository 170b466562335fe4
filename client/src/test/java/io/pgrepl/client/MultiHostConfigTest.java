package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.TargetSessionAttrs;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Multi-host strings through {@link ConnectionConfig#parse}, with libpq's environment variables. */
class MultiHostConfigTest {

    @Test
    void hostListsBecomeServersToTry() {
        ConnectionConfig c = ConnectionConfig.parse("host=db1,db2 hostaddr=10.0.0.1,10.0.0.2 port=5433,5434"
                + " target_session_attrs=primary load_balance_hosts=random password=pw-secret", k -> null);
        assertEquals(List.of(new HostSpec("db1", "10.0.0.1", 5433), new HostSpec("db2", "10.0.0.2", 5434)), c.hosts());
        assertEquals("db1", c.host());
        assertEquals(5433, c.port());
        assertEquals(TargetSessionAttrs.PRIMARY, c.targetSessionAttrs());
        assertEquals(LoadBalanceHosts.RANDOM, c.loadBalanceHosts());
        ConnectionConfig second = c.forHost(c.hosts().get(1));
        assertEquals(List.of(new HostSpec("db2", "10.0.0.2", 5434)), second.hosts());
        assertEquals("10.0.0.2", second.hostAddress());
        assertEquals("pw-secret", second.password(), "each host gets the same settings");
        assertEquals(TargetSessionAttrs.PRIMARY, second.targetSessionAttrs());
        assertFalse(c.toString().contains("pw-secret"), c.toString());
        assertEquals(c.hosts(), c.toBuilder().build().hosts(), "toBuilder keeps the list");
        assertEquals(List.of(new HostSpec("other", "10.0.0.1", 5433)), c.toBuilder().host("other").build().hosts(),
                "setting one host leaves a single server: the first one's address and port, the new name");
    }

    @Test
    void environmentDefaultsSessionAttributesAndBalancing() {
        Map<String, String> env = Map.of("PGHOST", "a,b", "PGPORT", "7000,7001",
                "PGTARGETSESSIONATTRS", "read-write", "PGLOADBALANCEHOSTS", "random");
        ConnectionConfig c = ConnectionConfig.parse("", env::get);
        assertEquals(List.of(new HostSpec("a", null, 7000), new HostSpec("b", null, 7001)), c.hosts());
        assertEquals(TargetSessionAttrs.READ_WRITE, c.targetSessionAttrs());
        assertEquals(LoadBalanceHosts.RANDOM, c.loadBalanceHosts());
        ConnectionConfig explicit = ConnectionConfig.parse("postgresql://x:1,y:2/db?target_session_attrs=standby", env::get);
        assertEquals(List.of(new HostSpec("x", null, 1), new HostSpec("y", null, 2)), explicit.hosts());
        assertEquals(TargetSessionAttrs.STANDBY, explicit.targetSessionAttrs());
        ConnectionConfig single = ConnectionConfig.parse("host=h", k -> null);
        assertEquals(TargetSessionAttrs.ANY, single.targetSessionAttrs());
        assertEquals(LoadBalanceHosts.DISABLE, single.loadBalanceHosts());
        assertNull(single.hostAddress());
    }
}
