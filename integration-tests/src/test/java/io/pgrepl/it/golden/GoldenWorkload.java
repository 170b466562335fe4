package io.pgrepl.it.golden;

import java.util.ArrayList;
import java.util.List;

/**
 * The SQL that makes every pgoutput message a server version can emit. Each entry is sent as its
 * own simple query on one session (COMMIT PREPARED and the origin session functions need that).
 */
final class GoldenWorkload {
    static final String PUBLICATION = "golden_pub";
    /**
     * 15+: t_filt alone, with a column list (no {@code secret}) and a row filter ({@code flag}).
     * Kept out of {@link #PUBLICATION}: test_decoding sees every column and row, so this
     * publication's capture is checked against hand-written expectations instead.
     */
    static final String FILTERED_PUBLICATION = "golden_pub_filtered";
    /** About 100kB of reorder buffer: more than logical_decoding_work_mem=64kB. */
    private static final String PAD = "INSERT INTO t_pad SELECT g, repeat('x', 1000) FROM generate_series(1, 100) g";

    /** Every table but t_pad. */
    static final List<String> PUBLISHED = List.of("t_default", "t_full", "t_idx", "t_toast", "t_enum", "t_parent",
            "t_child", "t_big", "\"Schéma Ünï\".\"Mixed\"\"Case Tbl\"");

    private GoldenWorkload() {}

    /** Tables, types and the publication, run before the slots are created. */
    static List<String> schema(int major) {
        List<String> s = new ArrayList<>();
        s.add("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
        s.add("CREATE TABLE t_default (id integer PRIMARY KEY, name text, note varchar(40), flag boolean)");
        s.add("CREATE TABLE t_full (id integer, a text, b integer)");
        s.add("ALTER TABLE t_full REPLICA IDENTITY FULL");
        s.add("CREATE TABLE t_idx (id integer NOT NULL, code text NOT NULL, v text)");
        s.add("CREATE UNIQUE INDEX t_idx_code ON t_idx (code)");
        s.add("ALTER TABLE t_idx REPLICA IDENTITY USING INDEX t_idx_code");
        s.add("CREATE TABLE t_toast (id integer PRIMARY KEY, big text, small integer)");
        // EXTERNAL: stored out of line uncompressed, so the value is certainly TOASTed.
        s.add("ALTER TABLE t_toast ALTER COLUMN big SET STORAGE EXTERNAL");
        s.add("CREATE TABLE t_enum (id integer PRIMARY KEY, m mood)");
        s.add("CREATE TABLE t_parent (id serial PRIMARY KEY, name text)");
        s.add("CREATE TABLE t_child (id serial PRIMARY KEY, parent_id integer REFERENCES t_parent (id))");
        s.add("CREATE TABLE t_big (id integer)");
        s.add("CREATE TABLE t_pad (id integer, pad text)");
        s.add("CREATE SCHEMA \"Schéma Ünï\"");
        s.add("CREATE TABLE \"Schéma Ünï\".\"Mixed\"\"Case Tbl\" (\"Key\" integer PRIMARY KEY, \"Col ü\" text, \"ÄÖ\" integer)");
        List<String> published = new ArrayList<>(PUBLISHED);
        if (major >= 18) {
            // A stored generated column, published (publish_generated_columns, 18+) and so
            // comparable with test_decoding, which always prints it.
            s.add("CREATE TABLE t_gen (id integer PRIMARY KEY, a integer, g integer GENERATED ALWAYS AS (a * 2) STORED)");
            published.add("t_gen");
        }
        s.add("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE " + String.join(", ", published)
                + (major >= 18 ? " WITH (publish_generated_columns = stored)" : ""));
        if (major >= 15) {
            // The filter column is part of the key, as row filters on UPDATE/DELETE require.
            s.add("CREATE TABLE t_filt (id integer, flag boolean, a text, secret text, PRIMARY KEY (id, flag))");
            s.add("CREATE PUBLICATION " + FILTERED_PUBLICATION + " FOR TABLE t_filt (id, flag, a) WHERE (flag)");
        }
        s.add("SELECT pg_replication_origin_create('golden_origin')");
        return s;
    }

    static List<String> workload(int major) {
        List<String> w = new ArrayList<>();
        // Awkward text values, NULLs, empty strings.
        w.add("INSERT INTO t_default VALUES (1, 'plain', 'n1', true)");
        w.add("INSERT INTO t_default VALUES (2, NULL, '', false)");
        w.add("INSERT INTO t_default VALUES (3, E'it''s \"quoted\" back\\\\slash', E'tab\\there', NULL)");
        w.add("INSERT INTO t_default VALUES (4, E'line1\\nline2\\r\\nend', 'ünïcødé ✓ 漢字', true)");
        w.add("INSERT INTO t_default VALUES (5, '', NULL, NULL)");
        // Update without and with key change (DEFAULT identity: old key only when the key changes).
        w.add("UPDATE t_default SET name = 'renamed', flag = false WHERE id = 1");
        w.add("UPDATE t_default SET id = 10, note = 'moved' WHERE id = 2");
        w.add("DELETE FROM t_default WHERE id = 5");
        // FULL identity: whole old row on update and delete.
        w.add("INSERT INTO t_full VALUES (1, 'a1', 1), (2, NULL, 2)");
        w.add("UPDATE t_full SET a = 'a1''x' WHERE id = 1");
        w.add("DELETE FROM t_full WHERE id = 2");
        // USING INDEX identity.
        w.add("INSERT INTO t_idx VALUES (1, 'c1', 'v1'), (2, 'c2', NULL)");
        w.add("UPDATE t_idx SET v = 'v1b' WHERE code = 'c1'");
        w.add("UPDATE t_idx SET code = 'c2b' WHERE code = 'c2'");
        w.add("DELETE FROM t_idx WHERE code = 'c1'");
        // Unchanged TOAST: a large, incompressible value, then an update of another column.
        w.add("INSERT INTO t_toast SELECT 1, string_agg(md5(g::text), '') , 0 FROM generate_series(1, 100) g");
        w.add("UPDATE t_toast SET small = 1 WHERE id = 1");
        // Enum column: a Type message before the Relation.
        w.add("INSERT INTO t_enum VALUES (1, 'happy'), (2, NULL)");
        w.add("UPDATE t_enum SET m = 'sad' WHERE id = 1");
        // Quoted, mixed-case and non-ASCII names.
        w.add("INSERT INTO \"Schéma Ünï\".\"Mixed\"\"Case Tbl\" VALUES (1, 'wert ä', 7)");
        w.add("UPDATE \"Schéma Ünï\".\"Mixed\"\"Case Tbl\" SET \"Key\" = 2, \"Col ü\" = NULL WHERE \"Key\" = 1");
        w.add("DELETE FROM \"Schéma Ünï\".\"Mixed\"\"Case Tbl\" WHERE \"Key\" = 2");
        // ALTER TABLE: the next change re-sends the Relation with the new column.
        w.add("ALTER TABLE t_default ADD COLUMN extra integer");
        w.add("INSERT INTO t_default VALUES (6, 'after alter', 'x', true, 42)");
        // Truncate with both options (replicated from PG11).
        w.add("INSERT INTO t_parent (name) VALUES ('p1'), ('p2')");
        w.add("INSERT INTO t_child (parent_id) VALUES (1), (2)");
        w.add("TRUNCATE t_parent RESTART IDENTITY CASCADE");
        w.add("INSERT INTO t_parent (name) VALUES ('after truncate')");
        // A change under a replication origin (same session).
        w.add("SELECT pg_replication_origin_session_setup('golden_origin')");
        w.add("BEGIN");
        w.add("SELECT pg_replication_origin_xact_setup('0/ABCDEF', '2020-01-02 03:04:05.123456+00')");
        w.add("INSERT INTO t_default VALUES (7, 'from origin', NULL, NULL, NULL)");
        w.add("COMMIT");
        w.add("SELECT pg_replication_origin_session_reset()");
        // Logical messages: transactional (with a change) and not.
        w.add("BEGIN");
        w.add("SELECT pg_logical_emit_message(true, 'golden', 'tx message ü')");
        w.add("INSERT INTO t_default VALUES (8, 'with message', NULL, NULL, NULL)");
        w.add("COMMIT");
        w.add("SELECT pg_logical_emit_message(false, 'golden-nt', 'not transactional')");
        // Large transactions: committed, aborted, and one with a rolled-back subtransaction. The
        // bulk is in t_pad, outside the publication: it fills the reorder buffer past
        // logical_decoding_work_mem (so the transaction is streamed) without bloating the capture.
        w.add("BEGIN");
        w.add(big(1, 10));
        w.add(PAD);
        w.add(big(11, 20));
        w.add("COMMIT");
        w.add("BEGIN");
        w.add(big(101, 110));
        w.add(PAD);
        w.add(big(111, 120));
        w.add("ROLLBACK");
        w.add("BEGIN");
        w.add(big(201, 210));
        w.add("SAVEPOINT s1");
        w.add(big(301, 310));
        w.add(PAD);
        w.add(big(311, 320));
        w.add("ROLLBACK TO SAVEPOINT s1");
        w.add(big(401, 410));
        w.add("COMMIT");
        // Nested savepoints in a streamed transaction: b (with its child c) is rolled back after
        // being streamed, then a is released.
        w.add("BEGIN");
        w.add(big(501, 505));
        w.add("SAVEPOINT a");
        w.add(big(511, 515));
        w.add("SAVEPOINT b");
        w.add(big(521, 525));
        w.add("SAVEPOINT c");
        w.add(big(531, 535));
        w.add(PAD);
        w.add("ROLLBACK TO SAVEPOINT b");
        w.add(big(541, 545));
        w.add("RELEASE SAVEPOINT a");
        w.add(big(551, 555));
        w.add("COMMIT");
        // A prepared transaction larger than logical_decoding_work_mem: Stream Prepare with two_phase + streaming.
        w.add("BEGIN");
        w.add(big(601, 605));
        w.add(PAD);
        w.add(big(606, 610));
        w.add("PREPARE TRANSACTION 'golden streamed'");
        w.add("COMMIT PREPARED 'golden streamed'");
        if (major >= 15) {
            // Row filter (flag) and column list (no secret): updates that leave or enter the filter
            // become DELETE or INSERT for golden_pub_filtered.
            w.add("INSERT INTO t_filt VALUES (1, true, 'a1', 's1'), (2, false, 'a2', 's2')");
            w.add("UPDATE t_filt SET flag = true WHERE id = 2");
            w.add("UPDATE t_filt SET flag = false WHERE id = 1");
            w.add("UPDATE t_filt SET a = 'a2b', secret = 'x' WHERE id = 2");
            w.add("DELETE FROM t_filt WHERE id = 2");
        }
        if (major >= 18) {
            w.add("INSERT INTO t_gen (id, a) VALUES (1, 21)");
            w.add("UPDATE t_gen SET a = 5 WHERE id = 1");
        }
        // Prepared transactions, committed and rolled back.
        w.add("BEGIN");
        w.add("INSERT INTO t_default VALUES (20, 'prepared', 'commit', true, NULL)");
        w.add("PREPARE TRANSACTION 'golden gid ü'");
        w.add("COMMIT PREPARED 'golden gid ü'");
        w.add("BEGIN");
        w.add("INSERT INTO t_default VALUES (21, 'prepared', 'rollback', false, NULL)");
        w.add("PREPARE TRANSACTION 'golden-rollback'");
        w.add("ROLLBACK PREPARED 'golden-rollback'");
        w.add("INSERT INTO t_default VALUES (99, 'last', NULL, NULL, NULL)");
        return w;
    }

    private static String big(int from, int to) {
        return "INSERT INTO t_big SELECT g FROM generate_series(" + from + ", " + to + ") g";
    }
}
