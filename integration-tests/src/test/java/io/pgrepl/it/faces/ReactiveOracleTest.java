package io.pgrepl.it.faces;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static io.pgrepl.it.faces.FacesSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transaction publisher end to end, against test_decoding as the oracle: a test_decoding
 * slot created right after the pgoutput slot, before any change, must describe the same
 * operations on the same tables with the same values.
 */
class ReactiveOracleTest {
    private static final Pattern TD_CHANGE = Pattern.compile("^table ([^:]+): (INSERT|UPDATE|DELETE): (.*)$");
    private static final Pattern TD_COLUMN = Pattern.compile("(\\w+)\\[[^\\]]+\\]:('(?:[^']|'')*'|\\S+)");

    @PgMatrixTest
    void transactionsMatchTestDecoding(PgServer s) throws Exception {
        FacesSupport.setup(s, "fo");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('fo_td', 'test_decoding')");
        s.sql("postgres", "INSERT INTO fo VALUES (1, 'one'), (2, 'two'), (3, NULL)");
        s.sql("postgres", "UPDATE fo SET v = 'uno' WHERE id = 1");
        s.sql("postgres", "BEGIN; DELETE FROM fo WHERE id = 2; INSERT INTO fo VALUES (4, 'it''s'); COMMIT");
        s.sql("postgres", "UPDATE fo SET id = 5 WHERE id = 3");

        List<String> oracle = new ArrayList<>();
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            // The kit's servers may commit asynchronously: peek reads only flushed WAL, so wait for it.
            String insertLsn = await(sql.query("SELECT pg_current_wal_insert_lsn()")).singleRow().get(0);
            waitUntil("WAL flushed", Duration.ofSeconds(30), () -> {
                try {
                    return "t".equals(await(sql.query("SELECT pg_current_wal_flush_lsn() >= '" + insertLsn + "'::pg_lsn"))
                            .singleRow().get(0));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            for (var r : await(sql.query("SELECT data FROM pg_logical_slot_peek_changes('fo_td', NULL, NULL)")).rows()) {
                Matcher m = TD_CHANGE.matcher(r.get(0));
                if (!m.matches()) continue; // BEGIN/COMMIT
                StringBuilder line = new StringBuilder(m.group(2)).append(' ').append(m.group(1));
                Matcher c = TD_COLUMN.matcher(m.group(3));
                while (c.find()) {
                    String v = c.group(2);
                    if (v.startsWith("'")) v = v.substring(1, v.length() - 1).replace("''", "'");
                    line.append(' ').append(c.group(1)).append('=').append(v);
                }
                oracle.add(line.toString());
            }
        }
        assertEquals(7, oracle.size(), oracle.toString());

        List<String> ours = new ArrayList<>();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            ReplicationPublisher<TxEvent> pub = ReactiveReplication.transactions(repl,
                    FacesSupport.options("fo").build(), FlowOptions.defaults());
            CollectingSubscriber<TxEvent> sub = new CollectingSubscriber<>(e -> {
                Transaction t = (Transaction) e;
                for (PgOutputRecord r : t.changes()) {
                    String line = describe(r, t);
                    if (line != null) ours.add(line);
                }
                e.acknowledge();
            });
            pub.subscribe(sub);
            waitUntil("4 transactions", Duration.ofSeconds(60), () -> sub.items.size() >= 4 || sub.error != null);
            assertNull(sub.error);
            long lastEnd = ((Transaction) sub.items.get(3)).endLsn();
            sub.subscription.cancel();
            assertTrue(sub.done.await(0, TimeUnit.SECONDS) || true);
            await(pub.terminated());
            assertEquals(lastEnd, pub.stream().acknowledgedLsn(), "acknowledged through tx.acknowledge()");
        }
        assertEquals(oracle, ours);
        FacesSupport.dropSlot(s, "fo");
        FacesSupport.dropSlot(s, "fo_td");
    }

    /** The test_decoding shape: operation, table, then columns (key columns for a delete). */
    private static String describe(PgOutputRecord r, Transaction t) {
        if (r instanceof Insert i) return line("INSERT", t.relation(i.relationOid()), i.newTuple());
        // test_decoding prints "old-key: ... new-tuple: ..." when the key changed
        if (r instanceof Update u) return line("UPDATE", t.relation(u.relationOid()), u.oldTuple(), u.newTuple());
        if (r instanceof Delete d) return line("DELETE", t.relation(d.relationOid()), d.oldTuple());
        return null;
    }

    private static String line(String op, Relation rel, Tuple... tuples) {
        StringBuilder sb = new StringBuilder(op).append(' ').append(rel.namespace()).append('.').append(rel.name());
        for (Tuple tuple : tuples) if (tuple != null) for (ColumnValue c : tuple.columns()) {
            switch (c.kind()) {
                case TEXT -> sb.append(' ').append(c.name()).append('=').append(c.text());
                case NULL -> sb.append(' ').append(c.name()).append("=null");
                default -> { } // ABSENT (non-key column of a key tuple): test_decoding omits it too
            }
        }
        return sb.toString();
    }
}
