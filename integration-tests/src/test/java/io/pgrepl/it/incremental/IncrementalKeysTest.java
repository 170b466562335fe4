package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Composite keys whose text part holds tabs, backslashes, quotes and newlines (COPY escapes them,
 * pgoutput does not: the chunk keys and the stream keys must still meet), under updates, deletes
 * and key changes, with an additional condition; and a keyless table refused with its name.
 */
@PgTest
class IncrementalKeysTest {
    /** Rebuilds {@code inc_ck (a, b, v)} by (a, b) and checks reads against earlier changes. */
    static final class KeyedRebuild implements SnapshotReadHandler {
        final Map<String, String> rows = new HashMap<>();
        final Set<String> changed = new HashSet<>();
        final List<String> violations = new ArrayList<>();
        final Map<String, TableProgress> progress = new ConcurrentHashMap<>();
        volatile boolean sentinel;
        /** The last key read, so the workload can race the chunk being read. */
        volatile String lastA = "0";
        volatile String lastB = "";
        long reads;

        private static String key(TupleView t) {
            return t.text(0) + "\u0001" + t.text(1);
        }

        @Override
        public synchronized void onInsert(InsertMessage m) {
            if (!m.relation().name().equals("inc_ck")) return;
            if (m.newTuple().text(0).equals("-1")) sentinel = true;
            rows.put(key(m.newTuple()), m.newTuple().text(2));
            changed.add(key(m.newTuple()));
        }

        @Override
        public synchronized void onUpdate(UpdateMessage m) {
            if (!m.relation().name().equals("inc_ck")) return;
            if (m.hasOldTuple()) {
                rows.remove(key(m.oldTuple()));
                changed.add(key(m.oldTuple()));
            }
            rows.put(key(m.newTuple()), m.newTuple().text(2));
            changed.add(key(m.newTuple()));
        }

        @Override
        public synchronized void onDelete(DeleteMessage m) {
            if (!m.relation().name().equals("inc_ck")) return;
            rows.remove(key(m.oldTuple()));
            changed.add(key(m.oldTuple()));
        }

        @Override
        public synchronized void onSnapshotRead(TupleView row, long position) {
            String k = key(row);
            String v = row.text(2);
            if (changed.contains(k) && !v.equals(rows.get(k)) && violations.size() < 10) violations.add(k + " read " + v + " over " + rows.get(k));
            rows.put(k, v);
            reads++;
            lastA = row.text(0);
            lastB = row.text(1);
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            progress.put(p.table(), p);
        }
    }

    @Test
    void compositeEscapedKeysAndConditionsAndKeylessRefused(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS inc_ck_pub; DROP TABLE IF EXISTS inc_ck, inc_keyless;"
                + " CREATE TABLE inc_ck (a int, b text, v text, PRIMARY KEY (a, b));"
                + " INSERT INTO inc_ck SELECT g % 50, 'k' || (g / 50) || E'\\t\\\\''\\n' || g, 'v' || g FROM generate_series(1, 6000) g;"
                + " CREATE TABLE inc_keyless (x int); INSERT INTO inc_keyless VALUES (1);"
                + " CREATE PUBLICATION inc_ck_pub FOR TABLE inc_ck, inc_keyless");
        KeyedRebuild r = new KeyedRebuild();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection work = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, "inc_ck");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_ck").publications("inc_ck_pub").messages(true)
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100), r);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            Thread w = new Thread(() -> {
                Random rnd = new Random(3);
                try {
                    while (!stop.get()) {
                        String where;
                        if (rnd.nextInt(10) < 7) {
                            // just ahead of the last read: rows the chunk in flight is reading
                            String a = r.lastA;
                            where = " WHERE a = " + a + " AND b = (SELECT b FROM inc_ck WHERE a = " + a + " AND b > "
                                    + io.pgrepl.client.replication.Identifiers.quoteLiteral(r.lastB) + " ORDER BY b LIMIT 1 OFFSET "
                                    + rnd.nextInt(60) + ")";
                        } else {
                            int a = rnd.nextInt(50);
                            where = " WHERE a = " + a + " AND b = (SELECT b FROM inc_ck WHERE a = " + a + " ORDER BY random() LIMIT 1)";
                        }
                        String stmt = switch (rnd.nextInt(3)) {
                            case 0 -> "UPDATE inc_ck SET v = md5(random()::text)" + where;
                            case 1 -> "DELETE FROM inc_ck" + where;
                            default -> "UPDATE inc_ck SET b = b || E'\\\\x'" + where;
                        };
                        await(work.query(stmt));
                        txs.incrementAndGet();
                    }
                } catch (Exception e) {
                    if (!stop.get()) throw new RuntimeException(e);
                }
            }, "inc-ck-workload");
            w.setDaemon(true);
            w.start();
            waitUntil("the workload", Duration.ofSeconds(30), () -> txs.get() > 10);
            // The condition keeps a < 40: rows of a >= 40 are never read.
            snaps.execute(Map.of("public.inc_ck", "a < 40"));
            snaps.execute("public.inc_keyless");
            waitUntil("both ended", Duration.ofSeconds(90), () -> ended(r, "public.inc_ck") && ended(r, "public.inc_keyless"));
            stop.set(true);
            w.join(30_000);
            TableProgress keyless = r.progress.get("public.inc_keyless");
            assertEquals(TableProgress.Status.FAILED, keyless.status());
            assertTrue(keyless.error() != null && keyless.error().contains("inc_keyless"), keyless.error());
            assertEquals(TableProgress.Status.COMPLETED, r.progress.get("public.inc_ck").status(), String.valueOf(r.progress.get("public.inc_ck")));
            await(sql.query("INSERT INTO inc_ck VALUES (-1, 'sentinel', 's')"));
            waitUntil("the sentinel", Duration.ofSeconds(60), () -> r.sentinel);
            await(stream.stop());
            snaps.close();
            Map<String, String> expected = new HashMap<>();
            for (Row row : await(sql.query("SELECT a, b, v FROM inc_ck WHERE a < 40 OR a = -1")).rows()) {
                expected.put(row.get(0) + "\u0001" + row.get(1), row.get(2));
            }
            synchronized (r) {
                assertTrue(r.violations.isEmpty(), "reads that follow a newer change of their key: " + r.violations);
                Map<String, String> got = new HashMap<>(r.rows);
                // rows with a >= 40 reach the rebuild only through changes, never through reads
                got.keySet().removeIf(k -> Integer.parseInt(k.substring(0, k.indexOf('\u0001'))) >= 40);
                assertTrue(r.reads > 3000, "reads: " + r.reads);
                assertEquals(expected, got);
            }
        } finally {
            stop.set(true);
        }
    }

    private static boolean ended(KeyedRebuild r, String t) {
        TableProgress p = r.progress.get(t);
        return p != null && (p.status() == TableProgress.Status.COMPLETED || p.status() == TableProgress.Status.FAILED);
    }
}
