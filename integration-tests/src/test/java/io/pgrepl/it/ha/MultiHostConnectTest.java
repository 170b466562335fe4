package io.pgrepl.it.ha;

import static io.pgrepl.it.ha.HaSupport.await;
import static io.pgrepl.it.ha.HaSupport.host;
import static io.pgrepl.it.ha.HaSupport.majors;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.TargetSessionAttrs;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Multi-host connection strings against real servers: a dead host first, a server in hot
 * standby (restarted as a standby with no primary) and a primary. 18 answers the session
 * attributes from its startup ParameterStatus (in_hot_standby, default_transaction_read_only);
 * 10 is asked SHOW transaction_read_only and pg_is_in_recovery(), or SHOW alone on a physical
 * replication connection.
 */
class MultiHostConnectTest {

    @TestFactory
    Stream<DynamicTest> targetSessionAttrs() {
        return majors(18, 10).stream().map(v -> dynamicTest("PG " + v, () -> check(v)));
    }

    private void check(int major) throws Exception {
        try (PgServer primary = PgServer.builder().version(major).start();
             PgServer standby = PgServer.builder().version(major).start()) {
            standby.restartAsStandby();
            int dead = HaSupport.deadPort();
            List<HostSpec> hosts = List.of(new HostSpec("127.0.0.1", null, dead), host(standby), host(primary));
            // Passwords per host: the same spec gives both servers the same superuser password.
            ConnectionConfig.Builder base = HaSupport.multiHost(primary, hosts);

            assertLandsOn(standby, base.targetSessionAttrs(TargetSessionAttrs.ANY));
            assertLandsOn(primary, base.targetSessionAttrs(TargetSessionAttrs.READ_WRITE));
            assertLandsOn(primary, base.targetSessionAttrs(TargetSessionAttrs.PRIMARY));
            assertLandsOn(standby, base.targetSessionAttrs(TargetSessionAttrs.READ_ONLY));
            assertLandsOn(standby, base.targetSessionAttrs(TargetSessionAttrs.STANDBY));
            assertLandsOn(standby, base.targetSessionAttrs(TargetSessionAttrs.PREFER_STANDBY));
            // Physical walsenders take no SQL: the check goes through SHOW (or ParameterStatus on 14+).
            assertLandsOn(primary, base.targetSessionAttrs(TargetSessionAttrs.PRIMARY).replication(ReplicationMode.PHYSICAL));
            assertLandsOn(standby, base.targetSessionAttrs(TargetSessionAttrs.STANDBY).replication(ReplicationMode.PHYSICAL));
            assertLandsOn(primary, base.targetSessionAttrs(TargetSessionAttrs.READ_WRITE).replication(ReplicationMode.DATABASE));
            base.replication(ReplicationMode.NONE);

            // prefer-standby's second pass: no standby among the hosts, so any server will do.
            assertLandsOn(primary, HaSupport.multiHost(primary, List.of(new HostSpec("127.0.0.1", null, dead), host(primary)))
                    .targetSessionAttrs(TargetSessionAttrs.PREFER_STANDBY));

            // No standby at all: the error lists each host's failure, and is a connection error (may change).
            Throwable t = HaSupport.failure(PgConnection.connect(HaSupport.multiHost(primary,
                    List.of(new HostSpec("127.0.0.1", null, dead), host(primary)))
                    .targetSessionAttrs(TargetSessionAttrs.STANDBY).build()), Duration.ofSeconds(30));
            PgClientException e = assertInstanceOf(PgClientException.class, t);
            assertEquals(PgClientException.Kind.CONNECTION, e.kind());
            assertTrue(e.getMessage().contains("127.0.0.1:" + dead + ": could not connect"), e.getMessage());
            assertTrue(e.getMessage().contains("127.0.0.1:" + primary.port() + ": server is not in hot standby mode"),
                    e.getMessage());
            assertTrue(!e.getMessage().contains(primary.superuser().password()), "no password in the message");

            // load_balance_hosts=random spreads connections over the live hosts.
            Set<Integer> reached = new HashSet<>();
            ConnectionConfig random = HaSupport.multiHost(primary, List.of(host(standby), host(primary)))
                    .loadBalanceHosts(LoadBalanceHosts.RANDOM).build();
            for (int i = 0; i < 40 && reached.size() < 2; i++) {
                try (PgConnection c = await(PgConnection.connect(random))) {
                    reached.add(c.config().port());
                }
            }
            assertEquals(Set.of(primary.port(), standby.port()), reached);

            // The same through a libpq URL, with the environment left out.
            String url = "postgresql://" + primary.superuser().name() + ":" + primary.superuser().password() + "@127.0.0.1:"
                    + dead + ",127.0.0.1:" + standby.port() + ",127.0.0.1:" + primary.port()
                    + "/postgres?sslmode=disable&target_session_attrs=read-write";
            try (PgConnection c = await(PgConnection.connect(ConnectionConfig.parse(url, k -> null)))) {
                assertEquals(primary.port(), c.config().port());
                assertEquals(1, c.config().hosts().size(), "the connection's config names the server it reached");
            }
        }
    }

    private static void assertLandsOn(PgServer expected, ConnectionConfig.Builder config) throws Exception {
        try (PgConnection c = await(PgConnection.connect(config.build()))) {
            assertEquals(expected.port(), c.config().port(), config.build().targetSessionAttrs() + " / "
                    + config.build().replication());
        }
    }
}
