package io.pgrepl.it.snapshot;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The protocol on every major: slot creation with an exported snapshot in that version's syntax,
 * the version's catalog queries, ctid ranges where the server has TID Range Scan (14+) and one
 * unit per table before, then the stream from the consistent point. Small, to keep the matrix cheap.
 */
class SnapshotMatrixTest {

    @PgMatrixTest
    void copyThenStream(PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS m_pub; DROP TABLE IF EXISTS m_big, m_small;"
                + " CREATE TABLE m_big (id int PRIMARY KEY, v text); INSERT INTO m_big SELECT g, md5(g::text) FROM generate_series(1, 3000) g;"
                + " CREATE TABLE m_small (id int PRIMARY KEY, b bytea, t text);"
                + " INSERT INTO m_small VALUES (1, '\\x00ff5c'::bytea, E'a\\tb\\\\c'), (2, NULL, NULL);"
                + " CREATE PUBLICATION m_pub FOR TABLE m_big, m_small");
        Collector reads = new Collector();
        AtomicInteger inserts = new AtomicInteger();
        AtomicBoolean early = new AtomicBoolean();
        LogicalStreamHandler h = new LogicalStreamHandler() {
            @Override
            public void onInsert(InsertMessage m) {
                if (reads.end == null) early.set(true);
                inserts.incrementAndGet();
            }
        };
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder("m_slot").publications("m_pub").build();
        SnapshotOptions o = SnapshotOptions.of(stream).withWorkers(2).withUnitPages(4)
                .withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            InitialSnapshot.Started st = await(InitialSnapshot.start(repl, InitialSnapshotMode.INITIAL, o, reads, h));
            await(sql.query("INSERT INTO m_small VALUES (3, NULL, 'streamed')"));
            SnapshotSupport.waitUntil(() -> inserts.get() == 1, Duration.ofSeconds(30), "the streamed insert");
            st.stream().stop();
            assertEquals(3002, st.snapshot().rows());
        }
        assertFalse(early.get());
        assertEquals(3000, reads.rows.get("public.m_big").size());
        assertEquals(List.of("[id=1, b=\\x00ff5c, t=a\tb\\c]", "[id=2, b=NULL, t=NULL]"), reads.sorted("public.m_small"));
        assertEquals(List.of("public.m_big", "public.m_small"), reads.end.tables());
    }
}
