package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalFlow;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The Flow face: snapshot reads arrive as {@link ChangeEvent#snapshotRead()} events among the changes. */
@PgTest
class IncrementalFlowTest {

    @Test
    void readsArriveAsSnapshotReadEvents(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS inc_flow_pub; DROP TABLE IF EXISTS inc_flow;"
                + " CREATE TABLE inc_flow (id int PRIMARY KEY, v text); INSERT INTO inc_flow SELECT g, 'f' || g FROM generate_series(1, 1500) g;"
                + " CREATE PUBLICATION inc_flow_pub FOR TABLE inc_flow");
        List<ChangeEvent> events = new CopyOnWriteArrayList<>();
        Throwable[] error = new Throwable[1];
        Flow.Subscription[] subscription = new Flow.Subscription[1];
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, "inc_flow");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_flow").publications("inc_flow_pub").messages(true)
                    .statusInterval(Duration.ofMillis(200)).build();
            IncrementalFlow face = IncrementalFlow.changes(repl, o, FlowOptions.defaults(),
                    IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100));
            face.publisher().subscribe(new Flow.Subscriber<>() {
                public void onSubscribe(Flow.Subscription sub) {
                    subscription[0] = sub;
                    sub.request(Long.MAX_VALUE);
                }

                public void onNext(ChangeEvent e) {
                    events.add(e);
                    e.acknowledge();
                }

                public void onError(Throwable t) {
                    error[0] = t;
                }

                public void onComplete() {}
            });
            face.snapshots().execute("inc_flow");
            waitUntil("1500 reads", Duration.ofSeconds(60), () -> events.stream().filter(ChangeEvent::snapshotRead).count() >= 1500);
            await(sql.query("INSERT INTO inc_flow VALUES (-1, 'after')"));
            waitUntil("the change after", Duration.ofSeconds(30), () -> events.stream()
                    .anyMatch(e -> !e.snapshotRead() && e.record() instanceof Insert i && "-1".equals(i.newTuple().text(0))));
            // Cancel before the connection closes: closing it under a live subscription signals
            // onError (the stream was lost), at a moment that races with the assertion below.
            assertNull(error[0]);
            subscription[0].cancel();
            face.snapshots().close();
        }
        List<ChangeEvent> reads = events.stream().filter(ChangeEvent::snapshotRead).toList();
        assertEquals(1500, reads.size());
        Set<String> ids = reads.stream().map(e -> ((Insert) e.record()).newTuple().text(0)).collect(Collectors.toSet());
        assertEquals(1500, ids.size(), "every row once");
        assertTrue(reads.stream().allMatch(e -> "inc_flow".equals(e.table()) && "public".equals(e.schema())));
        assertEquals("f7", reads.stream().map(e -> (Insert) e.record()).filter(i -> i.newTuple().text(0).equals("7")).findFirst()
                .orElseThrow().newTuple().text(1));
    }
}
