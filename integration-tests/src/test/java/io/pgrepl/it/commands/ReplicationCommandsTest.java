package io.pgrepl.it.commands;

import static io.pgrepl.it.connect.Await.await;
import static io.pgrepl.it.connect.Await.failure;
import static io.pgrepl.it.connect.Await.serverError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.IdentifySystem;
import io.pgrepl.client.replication.PublicationSpec;
import io.pgrepl.client.replication.ReplicationSlotStatus;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/** Walsender commands and publication helpers on every major of {@code -Dpg.versions}, one server per major. */
class ReplicationCommandsTest {
    private static PgServer server;

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    @TestFactory
    Stream<DynamicNode> replicationCommands() {
        return PgVersions.matrix().stream().map(v -> dynamicContainer("PG " + v, tests(v)));
    }

    private List<DynamicNode> tests(int v) {
        List<DynamicNode> t = new ArrayList<>();
        t.add(test("start server", () -> {
            stop();
            server = PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256).start();
        }));
        t.add(test("IDENTIFY_SYSTEM logical and physical, SHOW", () -> {
            try (PgConnection c = logical()) {
                IdentifySystem id = await(c.identifySystem());
                assertTrue(id.systemId().matches("\\d{10,20}"), id.systemId());
                assertEquals(1, id.timeline());
                assertTrue(id.xlogPos() > 0);
                assertEquals("postgres", id.dbname());
                assertEquals("logical", await(c.show("wal_level")));
                assertEquals(v, Integer.parseInt(await(c.show("server_version_num"))) / 10000);
            }
            try (PgConnection c = physical()) {
                assertNull(await(c.identifySystem()).dbname());
            }
        }));
        t.add(test("TIMELINE_HISTORY: no history for timeline 1 (58P01); invalid timeline refused before sending", () -> {
            try (PgConnection c = physical()) {
                serverError(c.timelineHistory(1), "58P01");
                assertInstanceOf(IllegalArgumentException.class, failure(c.timelineHistory(0)));
                assertEquals(1, await(c.identifySystem()).timeline()); // still usable
            }
        }));
        t.add(test("create logical slot, snapshot export: importable elsewhere", () -> {
            try (PgConnection c = logical(); PgConnection sql = normal()) {
                SlotCreated s = await(c.createReplicationSlot(CreateSlotOptions.logical("s_export", "pgoutput")
                        .withSnapshot(SnapshotMode.EXPORT)));
                assertEquals("s_export", s.slotName());
                assertEquals("pgoutput", s.outputPlugin());
                assertNotNull(s.snapshotName());
                assertTrue(s.consistentPoint() > 0);
                await(sql.simpleQuery("BEGIN ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION SNAPSHOT '"
                        + s.snapshotName() + "'; SELECT 1; COMMIT"));
                await(c.dropReplicationSlot("s_export", false));
            }
        }));
        t.add(test("create logical slot, snapshot use inside REPEATABLE READ on the same connection", () -> {
            try (PgConnection c = logical()) {
                // The server also demands READ ONLY (else XX000 "must be called in a read-only transaction").
                await(c.simpleQuery("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
                SlotCreated s = await(c.createReplicationSlot(CreateSlotOptions.logical("s_use", "pgoutput")
                        .withSnapshot(SnapshotMode.USE)));
                assertNull(s.snapshotName());
                assertEquals("1", await(c.query("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 's_use'")).singleRow().get(0));
                await(c.simpleQuery("COMMIT"));
                await(c.dropReplicationSlot("s_use", false));
            }
        }));
        t.add(test("create logical slot, snapshot nothing; duplicate 42710; missing drop 42704", () -> {
            try (PgConnection c = logical()) {
                CreateSlotOptions o = CreateSlotOptions.logical("s_nothing", "pgoutput").withSnapshot(SnapshotMode.NOTHING);
                assertNull(await(c.createReplicationSlot(o)).snapshotName());
                serverError(c.createReplicationSlot(o), "42710");
                await(c.dropReplicationSlot("s_nothing", false));
                serverError(c.dropReplicationSlot("s_nothing", false), "42704");
            }
        }));
        t.add(test("temporary slot disappears with its session", () -> {
            try (PgConnection sql = normal()) {
                try (PgConnection c = logical()) {
                    await(c.createReplicationSlot(CreateSlotOptions.logical("s_temp", "pgoutput").withTemporary(true)
                            .withSnapshot(SnapshotMode.NOTHING)));
                    assertEquals("t", await(sql.query("SELECT temporary FROM pg_replication_slots WHERE slot_name = 's_temp'"))
                            .singleRow().get(0));
                    await(c.closeAsync());
                }
                long deadline = System.currentTimeMillis() + 10_000;
                while (!await(sql.query("SELECT 1 FROM pg_replication_slots WHERE slot_name = 's_temp'")).rows().isEmpty()) {
                    assertTrue(System.currentTimeMillis() < deadline, "temporary slot still there");
                    Thread.sleep(50);
                }
            }
        }));
        t.add(test("two_phase (15+) and failover (17+): created, or refused before sending", () -> {
            try (PgConnection c = logical(); PgConnection sql = normal()) {
                var two = c.createReplicationSlot(CreateSlotOptions.logical("s_2pc", "pgoutput").withTwoPhase(true)
                        .withSnapshot(SnapshotMode.NOTHING));
                if (v >= 15) {
                    await(two);
                    assertEquals("t", await(sql.query("SELECT two_phase FROM pg_replication_slots WHERE slot_name = 's_2pc'")).singleRow().get(0));
                    await(c.dropReplicationSlot("s_2pc", false));
                } else {
                    assertUnsupported(two);
                }
                var fo = c.createReplicationSlot(CreateSlotOptions.logical("s_fo", "pgoutput").withFailover(true)
                        .withSnapshot(SnapshotMode.NOTHING));
                if (v >= 17) {
                    await(fo);
                    assertEquals("t", await(sql.query("SELECT failover FROM pg_replication_slots WHERE slot_name = 's_fo'")).singleRow().get(0));
                    await(c.alterReplicationSlot("s_fo", false, null));
                    assertEquals("f", await(sql.query("SELECT failover FROM pg_replication_slots WHERE slot_name = 's_fo'")).singleRow().get(0));
                    var alter2pc = c.alterReplicationSlot("s_fo", null, true);
                    if (v >= 18) {
                        await(alter2pc);
                        assertEquals("t", await(sql.query("SELECT two_phase FROM pg_replication_slots WHERE slot_name = 's_fo'")).singleRow().get(0));
                    } else {
                        assertUnsupported(alter2pc);
                    }
                    await(c.dropReplicationSlot("s_fo", false));
                } else {
                    assertUnsupported(fo);
                    assertUnsupported(c.alterReplicationSlot("s_any", true, null));
                }
                assertTrue(await(sql.query("SELECT 1 FROM pg_replication_slots WHERE slot_name IN ('s_2pc','s_fo')")).rows().isEmpty());
            }
        }));
        t.add(test("physical slot with RESERVE_WAL; READ_REPLICATION_SLOT (15+)", () -> {
            try (PgConnection c = physical()) {
                SlotCreated s = await(c.createReplicationSlot(CreateSlotOptions.physical("s_phys").withReserveWal(true)));
                assertNull(s.outputPlugin());
                assertNull(s.snapshotName());
                var read = c.readReplicationSlot("s_phys");
                if (v >= 15) {
                    ReplicationSlotStatus st = await(read).orElseThrow();
                    assertEquals("physical", st.slotType());
                    assertTrue(st.restartLsn() > 0);
                    assertEquals(Optional.empty(), await(c.readReplicationSlot("no_such_slot")));
                } else {
                    assertUnsupported(read);
                }
                await(c.dropReplicationSlot("s_phys", true));
            }
        }));
        t.add(test("drop of an active slot: 55006; WAIT after the walsender ends", () -> {
            try (PgConnection sql = normal()) {
                await(sql.query("CREATE PUBLICATION p_active FOR ALL TABLES"));
            }
            try (PgConnection c = logical()) {
                await(c.createReplicationSlot(CreateSlotOptions.logical("s_active", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
                PgConnection streamer = logical();
                HoldCopyBoth hold = new HoldCopyBoth("START_REPLICATION SLOT s_active LOGICAL 0/0 (proto_version '1', publication_names 'p_active')");
                streamer.submit(hold);
                await(hold.streaming);
                serverError(c.dropReplicationSlot("s_active", false), "55006");
                await(streamer.closeAsync());
                await(c.dropReplicationSlot("s_active", true));
            }
        }));
        t.add(test("slot names are validated before sending", () -> {
            assertThrows(IllegalArgumentException.class, () -> CreateSlotOptions.logical("Bad-Name", "pgoutput"));
            try (PgConnection c = logical()) {
                assertInstanceOf(IllegalArgumentException.class, failure(c.dropReplicationSlot("x; DROP", false)));
            }
        }));
        t.add(test("publications: create, alter, list, drop with names needing quotes", () -> {
            try (PgConnection c = normal()) {
                await(c.simpleQuery("CREATE SCHEMA \"Odd \"\"Schema\"; CREATE TABLE \"Odd \"\"Schema\".\"T1\"(id int primary key);"
                        + " CREATE TABLE plain_t(id int primary key)"));
                String name = "pub \"q\" 'x'";
                await(c.createPublication(PublicationSpec.forTables(name, "\"Odd \"\"Schema\".\"T1\"").with("publish", "insert, update")));
                assertTrue(await(c.listPublications()).contains(name));
                assertEquals("t|t|f", await(c.query("SELECT pubinsert || '|' || pubupdate || '|' || pubdelete FROM pg_publication"
                        + " WHERE pubname = " + io.pgrepl.client.replication.Identifiers.quoteLiteral(name))).singleRow().get(0)
                        .replace("true", "t").replace("false", "f"));
                await(c.alterPublication(PublicationSpec.forTables(name, "plain_t").with("publish", "delete")));
                assertEquals("public.plain_t", await(c.query("SELECT schemaname || '.' || tablename FROM pg_publication_tables"
                        + " WHERE pubname = " + io.pgrepl.client.replication.Identifiers.quoteLiteral(name))).singleRow().get(0));
                await(c.dropPublication(name, false));
                assertFalse(await(c.listPublications()).contains(name));
                await(c.dropPublication(name, true));
                serverError(c.dropPublication(name, false), "42704");
            }
        }));
        t.add(test("stop server", ReplicationCommandsTest::stop));
        return t;
    }

    private static void assertUnsupported(CompletionStage<?> stage) {
        PgClientException e = assertInstanceOf(PgClientException.class, failure(stage));
        assertEquals(PgClientException.Kind.UNSUPPORTED_BY_SERVER, e.kind());
    }

    private static DynamicNode test(String name, Executable e) {
        return dynamicTest(name, e);
    }

    private static ConnectionConfig.Builder cfg() {
        return ConnectionConfig.builder().host(server.host()).port(server.port()).database("postgres").sslMode(SslMode.DISABLE);
    }

    static PgConnection logical() throws Exception {
        return await(PgConnection.connect(cfg().user(server.replicationUser().name()).password(server.replicationUser().password())
                .replication(ReplicationMode.DATABASE).build()));
    }

    static PgConnection physical() throws Exception {
        return await(PgConnection.connect(cfg().user(server.replicationUser().name()).password(server.replicationUser().password())
                .replication(ReplicationMode.PHYSICAL).build()));
    }

    static PgConnection normal() throws Exception {
        return await(PgConnection.connect(cfg().user(server.superuser().name()).password(server.superuser().password()).build()));
    }

}
