package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.incremental.CaptureScope;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The library's capture scope ({@link IncrementalOptions#withCapture}): whatever asks for a table
 * it leaves out (a signal table row naming it, a regular expression matching it, the API, a saved
 * state) reads nothing of it and reports it {@code EXCLUDED} with the scope's reason and nothing
 * else, the same for an excluded name that no table has; a table whose key has a column the scope
 * leaves out is refused before its first chunk. The server's statistics show no scan of either.
 */
class IncrementalScopeTest {
    /** Leaves out schema scope_hr and column code of public.scope_keyed, each naming this test's setting. */
    static final CaptureScope SCOPE = new CaptureScope() {
        @Override
        public String excludes(String schema, String table) {
            return schema.equals("scope_hr") ? schema + "." + table + " is not captured: the test's schema list leaves it out" : null;
        }

        @Override
        public String excludesColumn(String schema, String table, String column) {
            return table.equals("scope_keyed") && column.equals("code") ? "key column code is not captured: the test's column list" : null;
        }
    };

    /** The excluded tables' scans once the statistics stop moving ({@link io.pgrepl.testkit.Waits#settled}). */
    private static long settledScans(PgConnection sql) throws Exception {
        return io.pgrepl.testkit.Waits.settled("the excluded tables' scans", () -> {
            await(sql.query("SELECT pg_stat_clear_snapshot()"));
            return scans(sql, "scope_hr", "secrets") + scans(sql, "public", "scope_keyed");
        });
    }

    private static long scans(PgConnection sql, String schema, String table) throws Exception {
        return Long.parseLong(await(sql.query("SELECT seq_scan + coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE schemaname = '"
                + schema + "' AND relname = '" + table + "'")).rows().get(0).get(0));
    }

    @PgMatrixTest(newestAndOldest = true)
    void nothingOutsideTheScopeIsReadOrReported(PgServer s) throws Exception {
        s.sql("postgres", "CREATE SCHEMA scope_hr;"
                + " CREATE TABLE scope_hr.secrets (id int PRIMARY KEY, salary numeric(10,2), note varchar(40));"
                + " INSERT INTO scope_hr.secrets SELECT g, g * 1000.5, 'secret ' || g FROM generate_series(48, 292) g;"
                + " CREATE TABLE scope_keyed (code varchar(8) PRIMARY KEY, v text);"
                + " INSERT INTO scope_keyed SELECT 'c' || g, 'v' || g FROM generate_series(1, 77) g;"
                + " CREATE TABLE \"Scope Open\" (id int PRIMARY KEY, amount numeric(8,2), tags text[]);"
                + " INSERT INTO \"Scope Open\" SELECT g, g / 4.0, ARRAY['t' || g, NULL] FROM generate_series(1, 40) g;"
                + " CREATE TABLE scope_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                + " CREATE PUBLICATION scope_pub FOR TABLE scope_hr.secrets, scope_keyed, \"Scope Open\", scope_signal");
        IncrementalPlanningTest.Recorder r = new IncrementalPlanningTest.Recorder();
        // Saved before the scope left the schema out.
        String state = "pgrepl-inc 1\nt " + URLEncoder.encode("scope_hr.secrets", StandardCharsets.UTF_8) + " - -\nr - - k,100 0";
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            long before = settledScans(sql);
            IncSupport.createSlot(repl, "scope_slot");
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withChunkSize(10).withSignalTable("public.scope_signal").withResumeState(state).withCapture(SCOPE), r);
            LogicalReplicationStream stream = repl.startLogical(LogicalReplicationOptions.builder("scope_slot").publications("scope_pub")
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build(), snaps);
            await(stream.started());
            waitUntil("the saved table refused", Duration.ofSeconds(30), () -> !r.of("scope_hr.secrets").isEmpty());
            assertFalse(snaps.state().contains("scope_hr"), "the refused table left the state: " + snaps.state());

            // A signal row: the excluded table, an excluded name no table has, an expression matching only the
            // excluded table, and one matching nothing at all.
            await(sql.query("INSERT INTO scope_signal VALUES ('s1', 'execute-snapshot', '{\"data-collections\": [\"scope_hr.secrets\","
                    + " \"scope_hr.nothing_here\", \"scope_h[r]\\\\..*\", \"nowhere_[x]\\\\..*\"]}')"));
            waitUntil("the signal's refusals", Duration.ofSeconds(30), () -> r.of("scope_hr.nothing_here").size() == 1
                    && r.ended("scope_h[r]\\..*") && r.ended("nowhere_[x]\\..*") && r.of("scope_hr.secrets").size() == 2);
            // The API, and a table whose key column the scope leaves out (refused once its key is known).
            snaps.execute("scope_hr.secrets", "public.scope_keyed", "public.\"Scope Open\"");
            waitUntil("the open table read", Duration.ofSeconds(60), () -> r.ended("public.\"Scope Open\""));

            for (TableProgress p : r.of("scope_hr.secrets")) {
                assertEquals(new TableProgress("scope_hr.secrets", TableProgress.Status.EXCLUDED, 0, 0, -1,
                        "scope_hr.secrets is not captured: the test's schema list leaves it out"), p);
            }
            assertEquals(3, r.of("scope_hr.secrets").size(), "the saved state, the signal and the API: " + r.of("scope_hr.secrets"));
            assertEquals(List.of(new TableProgress("scope_hr.nothing_here", TableProgress.Status.EXCLUDED, 0, 0, -1,
                    "scope_hr.nothing_here is not captured: the test's schema list leaves it out")), r.of("scope_hr.nothing_here"));
            // An expression that matches only what the scope leaves out answers as one that matches nothing.
            String matchedExcluded = r.last.get("scope_h[r]\\..*").error();
            String matchedNothing = r.last.get("nowhere_[x]\\..*").error();
            assertEquals(TableProgress.Status.FAILED, r.last.get("scope_h[r]\\..*").status());
            assertEquals(matchedNothing.replace("nowhere_[x]", "E"), matchedExcluded.replace("scope_h[r]", "E"));
            assertEquals(List.of(new TableProgress("public.scope_keyed", TableProgress.Status.EXCLUDED, 0, 0, -1,
                    "key column code is not captured: the test's column list")), r.of("public.scope_keyed"));

            assertEquals(TableProgress.Status.COMPLETED, r.last.get("public.\"Scope Open\"").status());
            assertEquals(40, r.reads.stream().filter(k -> k.startsWith("Scope Open:")).count());
            assertTrue(r.reads.stream().noneMatch(k -> k.startsWith("secrets:") || k.startsWith("scope_keyed:")), "an excluded read");
            await(stream.stop());
            snaps.close();
            // The open table's scans reach the statistics once its chunk sessions end; the others have none.
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (scans(sql, "public", "Scope Open") == 0 && System.nanoTime() < deadline) Thread.sleep(200);
            assertTrue(scans(sql, "public", "Scope Open") > 0, "the open table's reads show in the statistics");
            assertEquals(before, scans(sql, "scope_hr", "secrets") + scans(sql, "public", "scope_keyed"), "an excluded table was scanned");
        }
    }
}
