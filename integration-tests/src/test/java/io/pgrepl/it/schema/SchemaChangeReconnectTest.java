package io.pgrepl.it.schema;

import static io.pgrepl.it.schema.SchemaChangeScriptTest.await;
import static io.pgrepl.it.schema.SchemaChangeScriptTest.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reconnecting stream: every new walsender sends the table's Relation again, and none of those
 * repeats is announced as a schema change, whether the transaction was acknowledged before the break
 * or is sent again; a real change after the reconnect still is. A stream started anew (as after a
 * restart) announces the shape again, as FIRST_SEEN.
 */
class SchemaChangeReconnectTest {
    @PgMatrixTest(newestAndOldest = true)
    void resentRelationsAreNoChange(PgServer s) throws Exception {
        s.sql("postgres", "DROP TABLE IF EXISTS rc_items; CREATE TABLE rc_items (id int PRIMARY KEY, qty numeric(10,2));"
                + " DROP PUBLICATION IF EXISTS rc_pub; CREATE PUBLICATION rc_pub FOR TABLE rc_items");
        s.dropReplicationSlotIfExists("rc_slot");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('rc_slot', 'pgoutput')");
        List<SchemaChange> changes = new CopyOnWriteArrayList<>();
        List<Integer> inserts = new CopyOnWriteArrayList<>();
        AtomicInteger relations = new AtomicInteger();
        AtomicInteger starts = new AtomicInteger();
        boolean[] acknowledge = {true};
        LogicalReplicationOptions options = LogicalReplicationOptions.builder("rc_slot").publications("rc_pub")
                .statusInterval(Duration.ofMillis(200)).build();
        ConnectionConfig config = ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .replication(ReplicationMode.DATABASE).build();
        ReconnectingLogicalStream stream = ReconnectingLogicalStream.start(config, options, new LogicalStreamHandler() {
            private LogicalReplicationStream current;

            @Override
            public void onStarted(LogicalReplicationStream st) {
                current = st;
                starts.incrementAndGet();
            }

            @Override
            public void onSchemaChange(SchemaChange change) {
                changes.add(change);
            }

            @Override
            public void onRelation(RelationMessage m) {
                relations.incrementAndGet();
            }

            @Override
            public void onInsert(InsertMessage m) {
                inserts.add(m.newTuple().int4(0));
            }

            @Override
            public void onCommit(CommitMessage m) {
                if (acknowledge[0]) current.acknowledge(m.endLsn());
            }
        }, new ReconnectPolicy(Duration.ofMillis(50), Duration.ofMillis(200), 2, 0, 0));
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            s.sql("postgres", "INSERT INTO rc_items VALUES (1, 1.50)");
            waitFor("the first row", () -> inserts.contains(1));
            assertEquals(1, changes.size());
            assertEquals(SchemaChange.Kind.FIRST_SEEN, changes.get(0).kind());

            kill(sql, "rc_slot");
            waitFor("a second connection", () -> starts.get() == 2);
            s.sql("postgres", "INSERT INTO rc_items VALUES (2, 2.50)");
            waitFor("the second row", () -> inserts.contains(2));
            assertEquals(2, relations.get(), "the new walsender sent the Relation again");
            assertEquals(1, changes.size(), "and it was no change: " + changes);

            acknowledge[0] = false; // the next transaction is sent again after the break
            s.sql("postgres", "INSERT INTO rc_items VALUES (3, 3.50)");
            waitFor("the third row", () -> inserts.contains(3));
            kill(sql, "rc_slot");
            waitFor("the third row again", () -> inserts.stream().filter(i -> i == 3).count() == 2);
            acknowledge[0] = true;
            assertEquals(3, relations.get());
            assertEquals(1, changes.size(), "a transaction sent again brings no change either: " + changes);

            s.sql("postgres", "ALTER TABLE rc_items ALTER COLUMN qty TYPE numeric(12,4); INSERT INTO rc_items VALUES (4, 4.50)");
            waitFor("the fourth row", () -> inserts.contains(4));
            assertEquals(2, changes.size(), String.valueOf(changes));
            SchemaChange alter = changes.get(1);
            assertEquals(SchemaChange.Kind.ALTER, alter.kind());
            assertEquals("qty", alter.retyped().get(0).after().name());
            assertEquals(12 << 16 | 4, alter.retyped().get(0).after().typmod() - 4, "numeric(12,4)'s typmod");
        } finally {
            await(stream.stop());
        }

        // A new stream knows nothing: the shape is announced again, as FIRST_SEEN (a restart's re-announcement).
        List<SchemaChange> fresh = new CopyOnWriteArrayList<>();
        s.sql("postgres", "INSERT INTO rc_items VALUES (5, 5.50)");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            AtomicInteger seen = new AtomicInteger();
            LogicalReplicationStream st = repl.startLogical(options, new LogicalStreamHandler() {
                @Override
                public void onSchemaChange(SchemaChange change) {
                    fresh.add(change);
                }

                @Override
                public void onInsert(InsertMessage m) {
                    if (m.newTuple().int4(0) == 5) seen.incrementAndGet();
                }
            });
            waitFor("the fifth row", () -> seen.get() == 1);
            await(st.stop());
        }
        assertEquals(1, fresh.size(), String.valueOf(fresh));
        assertEquals(SchemaChange.Kind.FIRST_SEEN, fresh.get(0).kind());
        assertTrue(fresh.get(0).after().columns().stream().anyMatch(c -> c.typmod() == (12 << 16 | 4) + 4));
        s.dropReplicationSlot("rc_slot");
    }

    private static void kill(PgConnection sql, String slot) throws Exception {
        waitFor("the walsender", () -> {
            try {
                return "t".equals(await(sql.query("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
                        + " WHERE slot_name = '" + slot + "' AND active_pid IS NOT NULL")).rows().stream().findFirst()
                        .map(r -> r.get(0)).orElse("f"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void waitFor(String what, java.util.function.BooleanSupplier cond) throws Exception {
        Waits.until(what, cond::getAsBoolean);
    }
}
