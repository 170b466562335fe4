package io.pgrepl.benchmarks.decode;

import io.pgrepl.testkit.PgServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The decode benchmarks' inputs, captured from a real test-kit server: each input's changes are
 * loaded into a table of its own after its slot was created, then read back as raw pgoutput messages
 * with {@code pg_logical_slot_get_binary_changes} (one row per message: exactly the bytes a
 * walsender puts in XLogData). Relation and Type messages are kept apart: decoders see them once,
 * in the setup, as they would once per connection.
 */
public final class DecodeInputs {
    /** Rows per input: one transaction each. */
    static final int ROWS = 1000;

    /**
     * One input: every message in stream order, and apart from it the metadata (Relation, Type) and
     * the measured messages (all others). In a streamed transaction the Relation comes inside a
     * stream block with the block's xid, so decoders are primed with {@code all}, in order.
     */
    public record Input(String name, String table, List<byte[]> all, List<byte[]> metadata, List<byte[]> measured) {
        public int bytes() {
            return measured.stream().mapToInt(b -> b.length).sum();
        }
    }

    private DecodeInputs() {}

    /** A PostgreSQL 17 server whose small decoding memory makes a 1,000-row transaction stream (proto 2). */
    public static PgServer start() {
        return PgServer.builder().version(17).setting("max_replication_slots", "10")
                .setting("logical_decoding_work_mem", "64kB").start();
    }

    public static Connection jdbc(PgServer s) throws Exception {
        Properties p = new Properties();
        p.setProperty("user", s.superuser().name());
        p.setProperty("password", s.superuser().password());
        p.setProperty("sslmode", "disable");
        return DriverManager.getConnection("jdbc:postgresql://" + s.host() + ":" + s.port() + "/postgres", p);
    }

    /** Captures the named input (narrow, wide, update_old_key, binary, streamed). */
    public static Input capture(PgServer s, String name) throws Exception {
        try (Connection c = jdbc(s); Statement st = c.createStatement()) {
            String table = "in_" + name;
            String slot = "slot_" + name;
            String options = "'proto_version', '1', 'publication_names', 'pub_" + name + "'";
            String narrow = "(id int PRIMARY KEY, a int, b bigint, c text, d timestamptz)";
            String narrowRows = "SELECT g, g * 7, g * 1000003::bigint, 'row:' || g || ' some text value',"
                    + " '2026-01-01 00:00:00+00'::timestamptz + g * interval '1 second' FROM generate_series(1, " + ROWS + ") g";
            String load;
            switch (name) {
                case "narrow" -> {
                    st.execute("CREATE TABLE " + table + narrow);
                    load = "INSERT INTO " + table + " " + narrowRows;
                }
                case "binary" -> {
                    st.execute("CREATE TABLE " + table + narrow);
                    load = "INSERT INTO " + table + " " + narrowRows;
                    options += ", 'binary', 'true'";
                }
                case "streamed" -> {
                    st.execute("CREATE TABLE " + table + narrow);
                    // 1,000 rows are ~100 kB of changes: over logical_decoding_work_mem (64 kB), so streamed.
                    load = "INSERT INTO " + table + " " + narrowRows;
                    options = "'proto_version', '2', 'streaming', 'on', 'publication_names', 'pub_" + name + "'";
                }
                case "update_old_key" -> {
                    st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, a int, c text)");
                    st.execute("INSERT INTO " + table + " SELECT g, g, 'row:' || g FROM generate_series(1, " + ROWS + ") g");
                    // Changing the key sends the old key ('K' tuple) with the new row.
                    load = "UPDATE " + table + " SET id = id + 1000000, a = a + 1";
                }
                case "wide" -> {
                    st.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, c_int2 smallint, c_int4 int, c_int8 bigint,"
                            + " c_numeric numeric(12,2), c_float4 real, c_float8 double precision, c_bool boolean, c_text text,"
                            + " c_varchar varchar(40), c_char char(8), c_date date, c_timestamp timestamp, c_timestamptz timestamptz,"
                            + " c_uuid uuid, c_jsonb jsonb, c_bytea bytea, c_time time, c_interval interval, c_inet inet)");
                    load = "INSERT INTO " + table + " SELECT g, (g % 30000)::smallint, g * 7, g * 1000003::bigint,"
                            + " g * 1.25, g / 3.0, g / 7.0, g % 2 = 0, 'row:' || g || ' a text value of some length',"
                            + " 'varchar ' || g, 'ch' || (g % 100), '2026-01-01'::date + g, '2026-01-01'::timestamp + g * interval '1 minute',"
                            + " '2026-01-01 00:00:00+00'::timestamptz + g * interval '1 second',"
                            + " md5(g::text)::uuid, jsonb_build_object('k', g, 'tag', 'x' || (g % 100)), decode(md5(g::text), 'hex'),"
                            + " '12:00'::time + g * interval '1 second', g * interval '1 hour', ('10.0.' || (g % 256) || '.1')::inet"
                            + " FROM generate_series(1, " + ROWS + ") g";
                }
                default -> throw new IllegalArgumentException("unknown input " + name);
            }
            st.execute("CREATE PUBLICATION pub_" + name + " FOR TABLE " + table);
            st.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
            st.execute(load);
            List<byte[]> all = new ArrayList<>();
            List<byte[]> metadata = new ArrayList<>();
            List<byte[]> measured = new ArrayList<>();
            // The SQL functions read up to the flush pointer; a synchronous commit flushes the load before it.
            st.execute("SET synchronous_commit = on; CREATE TEMP TABLE flush_" + name + " (i int)");
            try (ResultSet rs = st.executeQuery("SELECT data FROM pg_logical_slot_get_binary_changes('" + slot
                    + "', NULL, NULL, " + options + ")")) {
                while (rs.next()) {
                    byte[] m = rs.getBytes(1);
                    all.add(m);
                    if (m[0] == 'R' || m[0] == 'Y') metadata.add(m);
                    else measured.add(m);
                }
            }
            return new Input(name, table, all, metadata, measured);
        }
    }
}
