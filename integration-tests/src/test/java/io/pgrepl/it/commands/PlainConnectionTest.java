package io.pgrepl.it.commands;

import static io.pgrepl.it.connect.Await.await;
import static io.pgrepl.it.connect.Await.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.PhysicalReplicationOptions;
import io.pgrepl.client.stream.PhysicalStreamHandler;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgTest;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Replication commands on a connection opened without {@code replication=database} are refused
 * before anything is sent, with the parameter to add in the message (a plain backend would only
 * say {@code syntax error at or near "IDENTIFY_SYSTEM"}). "Before sending" is checked on the
 * server: {@code pg_stat_activity.query} of the refusing connection still shows its previous query.
 */
@PgTest
class PlainConnectionTest {
    private static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(mode).build()));
    }

    private static void assertRefused(Throwable t, String command) {
        PgClientException e = assertInstanceOf(PgClientException.class, t, () -> "expected a refusal, got " + t);
        assertEquals(PgClientException.Kind.INVALID_ARGUMENT, e.kind());
        assertTrue(e.getMessage().startsWith(command), e.getMessage());
        assertTrue(e.getMessage().contains("replication=database"), e.getMessage());
    }

    private static void assertRefusedStage(Supplier<CompletionStage<?>> call, String command) {
        assertRefused(failure(call.get()), command);
    }

    /** What the server last ran on {@code c}'s backend, seen from another connection. */
    private static String lastQueryOf(PgServer s, PgConnection c) throws Exception {
        try (PgConnection other = connect(s, ReplicationMode.NONE)) {
            return await(other.query("SELECT query FROM pg_stat_activity WHERE pid = " + c.backendPid())).singleRow().get(0);
        }
    }

    @Test
    void everyReplicationCommandOnAPlainConnectionNamesReplicationDatabase(PgServer s) throws Exception {
        try (PgConnection plain = connect(s, ReplicationMode.NONE)) {
            await(plain.query("SELECT 'before' AS marker"));
            assertRefusedStage(plain::identifySystem, "IDENTIFY_SYSTEM");
            assertRefusedStage(() -> plain.createReplicationSlot(CreateSlotOptions.logical("s_plain", "pgoutput")),
                    "CREATE_REPLICATION_SLOT");
            assertRefusedStage(() -> plain.createReplicationSlot(CreateSlotOptions.physical("s_plain")),
                    "CREATE_REPLICATION_SLOT");
            assertRefusedStage(() -> plain.dropReplicationSlot("s_plain", false), "DROP_REPLICATION_SLOT");
            assertRefusedStage(() -> plain.timelineHistory(1), "TIMELINE_HISTORY");
            assertRefusedStage(() -> plain.readReplicationSlot("s_plain"), "READ_REPLICATION_SLOT");
            assertRefusedStage(() -> plain.simpleQuery("\n  start_replication SLOT s_plain LOGICAL 0/0"), "START_REPLICATION");
            assertRefused(assertThrows(PgClientException.class, () -> plain.startLogical(
                    LogicalReplicationOptions.builder("s_plain").publications("p").build(), new LogicalStreamHandler() { })),
                    "START_REPLICATION ... LOGICAL");
            assertRefused(assertThrows(PgClientException.class, () -> plain.startPhysical(
                    PhysicalReplicationOptions.of("s_plain", 0), new PhysicalStreamHandler() { })),
                    "START_REPLICATION ... PHYSICAL");

            assertEquals("SELECT 'before' AS marker", lastQueryOf(s, plain), "nothing reached the server");
            // SQL that merely mentions a command still goes through, and the connection is usable
            assertEquals("IDENTIFY_SYSTEM", await(plain.query("SELECT 'IDENTIFY_SYSTEM'")).singleRow().get(0));
            assertEquals("off", await(plain.show("fsync")), "SHOW is SQL as well, and passes");
        }
    }

    @Test
    void logicalCommandsOnAPhysicalConnectionNameReplicationDatabase(PgServer s) throws Exception {
        try (PgConnection physical = connect(s, ReplicationMode.PHYSICAL)) {
            assertRefusedStage(() -> physical.createReplicationSlot(CreateSlotOptions.logical("s_phys", "pgoutput")),
                    "CREATE_REPLICATION_SLOT");
            assertRefused(assertThrows(PgClientException.class, () -> physical.startLogical(
                    LogicalReplicationOptions.builder("s_phys").publications("p").build(), new LogicalStreamHandler() { })),
                    "START_REPLICATION ... LOGICAL");
            assertEquals(1, await(physical.identifySystem()).timeline(), "physical commands still work");
        }
    }
}
