package io.pgrepl.it.golden;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.config.SslMode;
import java.time.Duration;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.testkit.PgServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link GoldenWorkload} on a fresh server and peeks the slots: pgoutput in every variant
 * the major supports, and test_decoding (the oracle). Peeks never consume, so all variants read
 * the same WAL. The pgoutput and test_decoding slots are created back to back before the
 * workload, so they see the same transactions.
 */
final class GoldenCapture {
    static final String SLOT = "golden_pgoutput";
    static final String SLOT_2PC = "golden_pgoutput_2pc";
    static final String TD_SLOT = "golden_td";

    /** One way of reading the pgoutput slot. */
    record Variant(String name, int minMajor, boolean twoPhaseSlot, List<String> options, String publication) {
        Variant(String name, int minMajor, boolean twoPhaseSlot, List<String> options) {
            this(name, minMajor, twoPhaseSlot, options, GoldenWorkload.PUBLICATION);
        }
    }

    /** A capture: pgoutput lines (LSN TAB hex) per variant, test_decoding rows per oracle name. */
    record Capture(int major, Map<String, List<String>> pgoutput, Map<String, List<String>> testDecoding) {}

    static List<Variant> variants(int major) {
        List<Variant> all = List.of(
                new Variant("proto1", 10, false, List.of("proto_version", "1")),
                new Variant("proto1-binary", 14, false, List.of("proto_version", "1", "binary", "true")),
                new Variant("proto2-stream", 14, false, List.of("proto_version", "2", "streaming", "on")),
                new Variant("proto3-twophase", 15, true, List.of("proto_version", "3", "two_phase", "on", "streaming", "on")),
                new Variant("proto4-parallel", 16, false, List.of("proto_version", "4", "streaming", "parallel")),
                new Variant("proto4-twophase-parallel", 16, true,
                        List.of("proto_version", "4", "two_phase", "on", "streaming", "parallel")),
                new Variant("proto4-origin-none", 16, false, List.of("proto_version", "4", "origin", "none")),
                // Column list and row filter; no messages (they ignore publications), see GoldenWorkload.
                new Variant("proto1-filtered", 15, false, List.of("proto_version", "1"), GoldenWorkload.FILTERED_PUBLICATION));
        return all.stream().filter(v -> major >= v.minMajor()).toList();
    }

    static PgServer start(int major) {
        var builder = PgServer.builder().version(major)
                .setting("max_prepared_transactions", "10")
                .setting("max_replication_slots", "10");
        // Streaming needs the reorder buffer to overflow; the setting exists from 13.
        if (major >= 13) builder = builder.setting("logical_decoding_work_mem", "64kB");
        return builder.start();
    }

    static Capture capture(PgServer server) throws Exception {
        int major = server.majorVersion();
        try (PgConnection c = await(PgConnection.connect(config(server)))) {
            // The test kit runs servers with synchronous_commit=off; logical decoding reads only
            // flushed WAL, so the last commits could be missing from an early peek (and differ
            // between variants). Each commit of this session flushes.
            exec(c, "SET synchronous_commit = on");
            for (String sql : GoldenWorkload.schema(major)) exec(c, sql);
            // Slots back to back, before any change.
            exec(c, "SELECT pg_create_logical_replication_slot('" + SLOT + "', 'pgoutput')");
            exec(c, "SELECT pg_create_logical_replication_slot('" + TD_SLOT + "', 'test_decoding')");
            if (major >= 15) {
                exec(c, "SELECT pg_create_logical_replication_slot('" + SLOT_2PC + "', 'pgoutput', false, true)");
            }
            for (String sql : GoldenWorkload.workload(major)) exec(c, sql);

            Map<String, List<String>> pgoutput = new LinkedHashMap<>();
            for (Variant v : variants(major)) {
                List<String> opts = new ArrayList<>(v.options());
                opts.addAll(List.of("publication_names", v.publication()));
                if (major >= 14 && v.publication().equals(GoldenWorkload.PUBLICATION)) opts.addAll(List.of("messages", "true"));
                String sql = "SELECT lsn, encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('"
                        + (v.twoPhaseSlot() ? SLOT_2PC : SLOT) + "', NULL, NULL" + optionList(opts) + ")";
                List<String> lines = new ArrayList<>();
                for (Row r : rows(c, sql)) lines.add(r.get(0) + "\t" + r.get(1));
                pgoutput.put(v.name(), lines);
            }
            Map<String, List<String>> td = new LinkedHashMap<>();
            List<String> base = List.of("include-xids", "0", "skip-empty-xacts", "1", "include-timestamp", "0");
            td.put("test_decoding", peekText(c, base));
            if (major >= 16) {
                List<String> local = new ArrayList<>(base);
                local.addAll(List.of("only-local", "1"));
                td.put("test_decoding-only-local", peekText(c, local));
            }
            return new Capture(major, pgoutput, td);
        }
    }

    private static ConnectionConfig config(PgServer server) {
        return ConnectionConfig.builder().host(server.host()).port(server.port())
                .user(server.superuser().name()).password(server.superuser().password())
                .database("postgres").sslMode(SslMode.DISABLE).applicationName("pgrepl-golden")
                .connectTimeout(Duration.ofSeconds(30)).build();
    }

    private static List<String> peekText(PgConnection c, List<String> opts) throws Exception {
        List<String> out = new ArrayList<>();
        String sql = "SELECT lsn, data FROM pg_logical_slot_peek_changes('" + TD_SLOT + "', NULL, NULL"
                + optionList(opts) + ")";
        for (Row r : rows(c, sql)) {
            // t_pad is only ballast for the reorder buffer and not published: keep it out of the oracle.
            if (r.get(1).startsWith("table public.t_pad:")) continue;
            out.add(r.get(0) + "\t" + escape(r.get(1)));
        }
        return out;
    }

    /** COPY text-format escaping, so a value with newlines stays on one line of the file. */
    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
    }

    private static String optionList(List<String> opts) {
        StringBuilder sb = new StringBuilder();
        for (String o : opts) sb.append(", '").append(o.replace("'", "''")).append('\'');
        return sb.toString();
    }

    private static void exec(PgConnection c, String sql) throws Exception {
        try {
            await(c.simpleQuery(sql));
        } catch (Exception e) {
            throw new IllegalStateException("failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    private static List<Row> rows(PgConnection c, String sql) throws Exception {
        List<QueryResult> results = await(c.simpleQuery(sql));
        return results.get(results.size() - 1).rows();
    }

    static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
