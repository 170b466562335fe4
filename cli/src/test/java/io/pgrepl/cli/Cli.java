package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.testkit.PgServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Test helpers: run the CLI in-process, parse its output with a real JSON parser, ask the server. */
final class Cli {
    /** Numbers as exact decimals: numeric must survive digit for digit. */
    static final ObjectMapper JSON = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private Cli() {}

    record Result(int rc, String out, String err) {
        /** Every stdout line parsed as a JSON object (fails on any line that is not one). */
        List<JsonNode> lines() {
            return parseLines(out);
        }

        List<String> types() {
            return lines().stream().map(n -> n.get("type").asText()).toList();
        }
    }

    static Result run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = Main.run(args, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Result(rc, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    static List<JsonNode> parseLines(String out) {
        List<JsonNode> nodes = new ArrayList<>();
        for (String line : out.lines().toList()) {
            try {
                JsonNode n = JSON.readTree(line);
                assertTrue(n != null && n.isObject(), "not a JSON object: " + line);
                nodes.add(n);
            } catch (Exception ex) {
                fail("not JSON: " + line + " (" + ex.getMessage() + ")");
            }
        }
        return nodes;
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception ex) {
            throw new AssertionError("not JSON: " + json, ex);
        }
    }

    static String url(PgServer s) {
        return s.url(s.superuser(), "postgres");
    }

    /** The first column of the first row of {@code sql}, through the client library (plain SQL session). */
    static String query(PgServer s, String sql) throws Exception {
        ConnectionConfig c = ConnectionConfig.parse(url(s)).toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection conn = PgConnection.connect(c).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            var r = conn.query(sql).toCompletableFuture().get(60, TimeUnit.SECONDS);
            return r.rows().isEmpty() ? null : r.rows().get(0).get(0);
        }
    }
}
