package io.pgrepl.testkit.schema;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scripted run of DDL interleaved with DML for schema-change tests, the same for the library, the
 * command line and the Kafka connector: columns added, dropped, renamed and widened, the key and the
 * replica identity changed, a table renamed and moved to another schema, tables created and dropped,
 * partitions attached and detached; on typmod'd types, arrays, a domain, an enum, NULLs, a TOASTed
 * value and names that need quoting. Publication {@value #PUBLICATION} is FOR ALL TABLES.
 *
 * <p>Each step is one simple query (so one transaction, and one query string for DDL capture's
 * {@code current_query()}); within a step, DDL on a table comes before its DML. Tables are named by
 * a label, since their names change.
 */
public final class SchemaScript {
    public static final String PUBLICATION = "sc_pub";
    /** The table the last step inserts into: a consumer has everything once it saw that row. */
    public static final String DONE = "done";
    public static final String ITEMS = "items";
    public static final String PLAIN = "plain";
    public static final String PARTED = "parted";
    public static final String P1 = "p1";
    public static final String P2 = "p2";
    public static final String DOTTED = "dotted";
    public static final String GONE = "gone";
    /** Made by CREATE TABLE AS, its rows written by the statement itself. */
    public static final String CTAS = "ctas";
    /** Made by SELECT INTO (inside a savepoint), its rows written by the statement itself. */
    public static final String INTO = "into";
    /** Made by CREATE TABLE (LIKE ...), rows inserted in the same transaction. */
    public static final String LIKE = "like";

    private SchemaScript() {}

    /**
     * One transaction of the script.
     *
     * @param sql     the statements, sent as one query string
     * @param ddlOn   labels of the tables an ALTER TABLE of this step changes (DDL capture reports them)
     * @param dml     labels of the tables this step writes rows to, in the order of their first row
     * @param creates labels of the tables this step creates, with their qualified names
     * @param drops   labels of the tables this step drops
     * @param filled  labels of the created tables whose creating statement writes their rows itself
     *                (CREATE TABLE AS, SELECT INTO): with DDL capture their CREATE comes at their first
     *                Relation, before those rows, and no FIRST_SEEN follows
     */
    public record Step(String sql, List<String> ddlOn, List<String> dml, Map<String, String> creates, List<String> drops,
                       List<String> filled) {
        Step(String sql, List<String> ddlOn, List<String> dml, Map<String, String> creates, List<String> drops) {
            this(sql, ddlOn, dml, creates, drops, List.of());
        }

        static Step of(String sql, List<String> ddlOn, List<String> dml) {
            return new Step(sql, ddlOn, dml, Map.of(), List.of());
        }
    }

    /** Long enough to be TOASTed out of line, and not compressible below the threshold. */
    static final String TOASTED = "(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 200) g)";

    /** Drops what an earlier run left, then creates the types, the tables (labels to qualified names) and the publication. */
    public static String setup() {
        return "DROP PUBLICATION IF EXISTS sc_pub;"
                + " DROP SCHEMA IF EXISTS \"Sales Dept\" CASCADE;"
                + " DROP TABLE IF EXISTS \"Order Lines\", sc_plain, \"sc_Parted\", sc_p1, sc_p2, sc_done, \"Dot.ted\", sc_gone, sc_into, sc_like CASCADE;"
                + " DROP TYPE IF EXISTS sc_mood CASCADE; DROP DOMAIN IF EXISTS sc_posint CASCADE;"
                + " CREATE SCHEMA \"Sales Dept\";"
                + " CREATE TYPE sc_mood AS ENUM ('sad', 'ok', 'happy');"
                + " CREATE DOMAIN sc_posint AS int CHECK (VALUE > 0);"
                + " CREATE TABLE \"Sales Dept\".\"Order Items\" (id int PRIMARY KEY, \"näme\" varchar(10), qty numeric(10,2),"
                + "   at timestamp(3), flags bit(4), tags text[], mood sc_mood, amount sc_posint, note text);"
                + " CREATE TABLE sc_plain (k int PRIMARY KEY, v text);"
                + " CREATE TABLE \"sc_Parted\" (k int NOT NULL, v text) PARTITION BY RANGE (k);"
                + " CREATE TABLE sc_p1 PARTITION OF \"sc_Parted\" FOR VALUES FROM (0) TO (100);"
                + " CREATE TABLE sc_p2 (k int NOT NULL, v text);"
                + " ALTER TABLE sc_p1 REPLICA IDENTITY FULL; ALTER TABLE sc_p2 REPLICA IDENTITY FULL;"
                + " CREATE TABLE sc_done (id int PRIMARY KEY);"
                + " CREATE PUBLICATION sc_pub FOR ALL TABLES";
    }

    /** The tables {@link #setup()} creates: label to qualified name. */
    public static Map<String, String> setupTables() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ITEMS, "\"Sales Dept\".\"Order Items\"");
        m.put(PLAIN, "sc_plain");
        m.put(PARTED, "\"sc_Parted\"");
        m.put(P1, "sc_p1");
        m.put(P2, "sc_p2");
        m.put(DONE, "sc_done");
        return m;
    }

    public static List<Step> steps() {
        String oi = "\"Sales Dept\".\"Order Items\"";
        String ol = "\"Sales Dept\".\"Order Lines\"";
        String pl = "public.\"Order Lines\"";
        String ct = "\"Sales Dept\".\"Ct As\"";
        return List.of(
                Step.of("INSERT INTO " + oi + " VALUES"
                        + " (1, 'ä-one', 12.50, '2024-02-29 12:34:56.789', B'1010', ARRAY['a', 'b c'], 'happy', 5, " + TOASTED + "),"
                        + " (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
                        + " (3, 'three', -0.01, '1999-12-31 23:59:59', B'0001', '{}', 'sad', 1, 'short');"
                        + " INSERT INTO \"sc_Parted\" VALUES (1, 'p1 one'), (2, 'p1 two');"
                        + " INSERT INTO sc_p2 VALUES (150, 'p2 standalone');"
                        + " INSERT INTO sc_plain VALUES (1, 'plain')", List.of(), List.of(ITEMS, P1, P2, PLAIN)),
                Step.of("ALTER TABLE " + oi + " ADD COLUMN \"Extra Col\" int;"
                        + " ALTER TABLE " + oi + " ALTER COLUMN \"Extra Col\" SET DEFAULT 7;"
                        + " UPDATE " + oi + " SET qty = 13.25 WHERE id = 1;"
                        + " INSERT INTO " + oi + " (id, \"näme\", \"Extra Col\") VALUES (4, 'four', 40)", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + oi + " RENAME COLUMN \"näme\" TO \"Näme Neu\";"
                        + " UPDATE " + oi + " SET \"Näme Neu\" = 'zwei' WHERE id = 2", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + oi + " ALTER COLUMN qty TYPE numeric(12,4);"
                        + " UPDATE " + oi + " SET qty = 1.2345 WHERE id = 3", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + oi + " ALTER COLUMN \"Näme Neu\" TYPE varchar(40);"
                        + " ALTER TABLE " + oi + " ALTER COLUMN at TYPE timestamp(6);"
                        + " UPDATE " + oi + " SET \"Näme Neu\" = repeat('l', 40), at = '2024-02-29 12:34:56.789012' WHERE id = 4",
                        List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + oi + " DROP COLUMN flags;"
                        + " DELETE FROM " + oi + " WHERE id = 3", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + oi + " REPLICA IDENTITY FULL;"
                        + " UPDATE " + oi + " SET amount = 6 WHERE id = 1;"
                        + " DELETE FROM " + oi + " WHERE id = 2", List.of(ITEMS), List.of(ITEMS)),
                Step.of("UPDATE " + oi + " SET \"Extra Col\" = 7 WHERE \"Extra Col\" IS NULL;"
                        + " ALTER TABLE " + oi + " REPLICA IDENTITY DEFAULT;"
                        + " ALTER TABLE " + oi + " DROP CONSTRAINT \"Order Items_pkey\";"
                        + " ALTER TABLE " + oi + " ADD PRIMARY KEY (id, \"Extra Col\");"
                        + " UPDATE " + oi + " SET mood = 'ok' WHERE id = 4", List.of(ITEMS), List.of(ITEMS)),
                Step.of("CREATE UNIQUE INDEX sc_oi_id ON " + oi + " (id);"
                        + " ALTER TABLE " + oi + " REPLICA IDENTITY USING INDEX sc_oi_id;"
                        + " UPDATE " + oi + " SET \"Extra Col\" = 8 WHERE id = 1", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + oi + " RENAME TO \"Order Lines\";"
                        + " INSERT INTO " + ol + " (id, \"Extra Col\", tags) VALUES (5, 1, ARRAY[NULL, 'x'])", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + ol + " SET SCHEMA public;"
                        + " UPDATE " + pl + " SET tags = '{y}' WHERE id = 5", List.of(ITEMS), List.of(ITEMS)),
                new Step("CREATE TABLE \"Dot.ted\" (id bigint PRIMARY KEY, \"MixedCase\" text, arr int[])", List.of(), List.of(),
                        Map.of(DOTTED, "public.\"Dot.ted\""), List.of()),
                Step.of("INSERT INTO \"Dot.ted\" VALUES (1, 'M', '{1,2}'), (2, NULL, NULL)", List.of(), List.of(DOTTED)),
                Step.of("ALTER TABLE \"Dot.ted\" ALTER COLUMN id TYPE numeric(20,0);"
                        + " UPDATE \"Dot.ted\" SET \"MixedCase\" = 'm' WHERE id = 1", List.of(DOTTED), List.of(DOTTED)),
                new Step("CREATE TABLE sc_gone (id int PRIMARY KEY, v varchar(5)); INSERT INTO sc_gone VALUES (1, 'gone')",
                        List.of(), List.of(GONE), Map.of(GONE, "public.sc_gone"), List.of()),
                new Step("DROP TABLE sc_gone", List.of(), List.of(), Map.of(), List.of(GONE)),
                Step.of("ALTER TABLE \"sc_Parted\" ATTACH PARTITION sc_p2 FOR VALUES FROM (100) TO (200);"
                        + " INSERT INTO \"sc_Parted\" VALUES (151, 'via parent')", List.of(PARTED), List.of(P2)),
                Step.of("ALTER TABLE \"sc_Parted\" DETACH PARTITION sc_p1;"
                        + " INSERT INTO sc_p1 VALUES (3, 'detached');"
                        + " UPDATE \"sc_Parted\" SET v = 'updated via parent' WHERE k = 150", List.of(PARTED), List.of(P1, P2)),
                Step.of("ALTER TABLE " + pl + " ADD COLUMN big text;"
                        + " ALTER TABLE " + pl + " ALTER COLUMN \"Extra Col\" SET DEFAULT 9;"
                        + " INSERT INTO " + pl + " (id, big) VALUES (6, " + TOASTED + ")", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE " + pl + " RENAME COLUMN \"Extra Col\" TO extra;"
                        + " ALTER TABLE " + pl + " DROP COLUMN note;"
                        + " UPDATE " + pl + " SET extra = 10 WHERE id = 6", List.of(ITEMS), List.of(ITEMS)),
                Step.of("ALTER TABLE sc_plain ADD c1 int; ALTER TABLE sc_plain ADD c2 text;"
                        + " INSERT INTO sc_plain VALUES (2, 'two', 2, 'zwei')", List.of(PLAIN), List.of(PLAIN)),
                Step.of("ALTER TABLE sc_plain DROP COLUMN c1; ALTER TABLE sc_plain ADD COLUMN c1 bigint;"
                        + " UPDATE sc_plain SET c1 = 3000000000 WHERE k = 2", List.of(PLAIN), List.of(PLAIN)),
                Step.of("ALTER TABLE sc_plain ALTER COLUMN k TYPE bigint; ALTER TABLE sc_plain ADD COLUMN e sc_mood;"
                        + " UPDATE sc_plain SET e = 'happy' WHERE k = 1", List.of(PLAIN), List.of(PLAIN)),
                new Step("DROP TABLE \"Dot.ted\"", List.of(), List.of(), Map.of(), List.of(DOTTED)),
                new Step("CREATE TABLE " + ct + " AS SELECT g AS id, (g * 1.25)::numeric(10,2) AS amount,"
                        + " ('2024-02-29 12:34:56.789'::timestamp + g * interval '1 day')::timestamp(3) AS at,"
                        + " (CASE WHEN g = 2 THEN NULL ELSE 'n' || g END)::varchar(12) AS \"Näme\","
                        + " (CASE WHEN g = 2 THEN NULL ELSE ARRAY[g * 1.5, NULL] END)::numeric(8,3)[] AS amounts,"
                        + " B'1010'::bit(4) AS flags FROM generate_series(1, 3) g", List.of(), List.of(CTAS),
                        Map.of(CTAS, ct), List.of(), List.of(CTAS)),
                new Step("BEGIN; SAVEPOINT s; SELECT k AS \"Key\", v, e AS mood, c1 INTO sc_into FROM sc_plain; RELEASE SAVEPOINT s;"
                        + " COMMIT", List.of(), List.of(INTO), Map.of(INTO, "public.sc_into"), List.of(), List.of(INTO)),
                new Step("CREATE TABLE sc_like (LIKE " + ct + " INCLUDING ALL, PRIMARY KEY (id));"
                        + " INSERT INTO sc_like SELECT * FROM " + ct, List.of(), List.of(LIKE), Map.of(LIKE, "public.sc_like"), List.of()),
                Step.of("ALTER TABLE " + ct + " ADD PRIMARY KEY (id); ALTER TABLE " + ct + " ALTER COLUMN amount TYPE numeric(12,4);"
                        + " UPDATE " + ct + " SET amount = 9.8765, amounts = NULL WHERE id = 1; DELETE FROM " + ct + " WHERE id = 3;"
                        + " ALTER TABLE sc_into ADD COLUMN note varchar(20); INSERT INTO sc_into (\"Key\", v, note) VALUES (3, NULL, 'after');"
                        + " ALTER TABLE sc_like RENAME COLUMN \"Näme\" TO \"Name\"; UPDATE sc_like SET \"Name\" = 'renamed' WHERE id = 2",
                        List.of(CTAS, INTO, LIKE), List.of(CTAS, INTO, LIKE)),
                new Step("DROP TABLE " + ct + "; DROP TABLE sc_into; DROP TABLE sc_like", List.of(), List.of(), Map.of(),
                        List.of(CTAS, INTO, LIKE)),
                Step.of("INSERT INTO sc_done VALUES (1)", List.of(), List.of(DONE)));
    }
}
