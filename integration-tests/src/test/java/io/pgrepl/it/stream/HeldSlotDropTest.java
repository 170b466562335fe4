package io.pgrepl.it.stream;

import static io.pgrepl.it.stream.StreamSupport.await;
import static io.pgrepl.it.stream.StreamSupport.connect;
import static io.pgrepl.it.stream.StreamSupport.createLogicalSlot;
import static io.pgrepl.it.stream.StreamSupport.waitUntil;
import static io.pgrepl.it.stream.StreamSupport.walsenderPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The test kit's {@link PgServer#dropReplicationSlot}, which tests call after ending a stream from
 * another connection: while a walsender holds the slot it waits (where pg_drop_replication_slot fails
 * with 55006, "is active for PID"), and it drops the slot once the walsender let go of it.
 */
class HeldSlotDropTest {

    @PgMatrixTest(newestAndOldest = true)
    void dropWaitsUntilTheWalsenderLetsGo(PgServer s) throws Exception {
        s.dropReplicationSlotIfExists("it_held");
        s.sql("postgres", "DROP PUBLICATION IF EXISTS it_held_pub; CREATE PUBLICATION it_held_pub");
        PgConnection repl = connect(s, ReplicationMode.DATABASE);
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            createLogicalSlot(repl, "it_held", false);
            LogicalReplicationStream st = repl.startLogical(LogicalReplicationOptions.builder("it_held")
                    .publications("it_held_pub").build(), new RecordingHandler());
            await(st.started());
            long walsender = walsenderPid(sql, "it_held");
            assertNotEquals(0, walsender, "the stream's walsender holds the slot");

            CompletableFuture<Void> drop = CompletableFuture.runAsync(() -> {
                try {
                    s.dropReplicationSlot("it_held");
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            waitUntil("the drop waiting on the server", Duration.ofSeconds(60), () -> drop.isDone() || waitingDrops(sql) == 1);
            assertFalse(drop.isDone(), () -> "the drop ended while the slot was held: " + drop.handle((v, e) -> e).join());
            assertEquals(walsender, walsenderPid(sql, "it_held"), "the slot is still held, and still there");

            // The stream's connection goes; its walsender exits, and lets go of the slot, when it gets there.
            repl.close();
            drop.get(Waits.CEILING.toSeconds(), TimeUnit.SECONDS);
            assertEquals("0", await(sql.query("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'it_held'"))
                    .singleRow().get(0));
        } finally {
            repl.close();
            s.sql("postgres", "DROP PUBLICATION it_held_pub");
        }
    }

    /** Statements of the test kit's drop, polling the slot. */
    private static int waitingDrops(PgConnection sql) {
        try {
            return Integer.parseInt(await(sql.query("SELECT count(*) FROM pg_stat_activity"
                    + " WHERE application_name = 'pgrepl-testkit' AND query LIKE 'DO $drop$%'")).singleRow().get(0));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
