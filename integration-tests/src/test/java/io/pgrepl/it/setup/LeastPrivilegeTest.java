package io.pgrepl.it.setup;

import static io.pgrepl.it.setup.PageServer.CUSTOMERS;
import static io.pgrepl.it.setup.PageServer.ORDERS;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.cli.CliBridge;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.testkit.PgVersions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/operations.md's server setup, proven: a server configured with only the page's
 * postgresql.conf and pg_hba.conf lines, a role with only the page's grants, and every
 * {@code pgrepl} command run as that role (identify, slot create/list/drop, stream with the
 * exported and the incremental snapshot, signals, top). Then each grant is taken away in turn and
 * the step that needs it fails, and the page's statement puts it back. The library's watermark
 * modes, monitor and guard: {@link LeastPrivilegeLibraryTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeastPrivilegeTest {
    static final ObjectMapper JSON = new ObjectMapper();
    private final Map<Integer, PageServer> servers = new HashMap<>();

    static Stream<Integer> majors() {
        List<Integer> m = PgVersions.matrix().stream().sorted().toList();
        int newest = m.get(m.size() - 1);
        return newest == m.get(0) ? Stream.of(newest) : Stream.of(newest, m.get(0));
    }

    PageServer server(int major) {
        return servers.computeIfAbsent(major, m -> {
            try {
                return new PageServer(m);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @AfterAll
    void stop() {
        servers.values().forEach(PageServer::close);
    }

    static CliBridge.Result pgrepl(String... args) {
        return CliBridge.run(args);
    }

    static CliBridge.Result ok(String... args) {
        CliBridge.Result r = pgrepl(args);
        assertEquals(0, r.rc(), () -> String.join(" ", args) + "\n" + r);
        return r;
    }

    static List<JsonNode> lines(CliBridge.Result r) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String l : r.out().lines().toList()) out.add(JSON.readTree(l));
        return out;
    }

    static long count(List<JsonNode> lines, String type, String table) {
        return lines.stream().filter(n -> n.path("type").asText().equals(type) && (table == null || n.path("table").asText().equals(table)))
                .count();
    }

    /** The incremental snapshot's end line of {@code table} (schema.table). */
    static JsonNode snapshotEnd(List<JsonNode> lines, String table) {
        return lines.stream().filter(n -> n.path("type").asText().equals("snapshot_end") && n.path("table").asText().equals(table))
                .findFirst().orElseThrow(() -> new AssertionError("no snapshot_end of " + table + " in " + lines));
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void everyCommandRunsAsThePagesRole(int major) throws Exception {
        PageServer s = server(major);
        String url = s.url();

        JsonNode id = JSON.readTree(ok("identify", url).out());
        assertEquals("app", id.path("dbname").asText(), id.toString());

        ok("slot", "create", url, "lp_cli", "--logical", "pgoutput");
        JsonNode list = JSON.readTree(ok("slot", "list", url, "--json").out());
        assertTrue(list.findValuesAsText("slot_name").contains("lp_cli"), list.toString());

        s.sql("INSERT INTO shop.orders (id, amount, code) VALUES (1001, 9.99, 'late'), (1002, NULL, 'later')");
        List<JsonNode> streamed = lines(ok("stream", url, "-S", "lp_cli", "-P", "app_pub", "--idle-exit", "2"));
        assertEquals(2, count(streamed, "insert", "orders"), streamed.toString());

        // The exported-snapshot copy: SELECT on both tables.
        List<JsonNode> copied = lines(ok("stream", url, "-S", "lp_export", "-P", "app_pub", "--create-slot", "--snapshot", "--idle-exit", "2"));
        assertEquals(ORDERS + 2, count(copied, "read", "orders"));
        assertEquals(CUSTOMERS, count(copied, "read", "customers"));

        // The incremental snapshot (read-only watermarks): SELECT only.
        List<JsonNode> inc = lines(ok("stream", url, "-S", "lp_cli", "-P", "app_pub", "--snapshot=incremental",
                "--snapshot-tables", "shop.orders,shop.customers", "--idle-exit", "3"));
        assertEquals("completed", snapshotEnd(inc, "shop.orders").path("status").asText(), inc.toString());
        assertEquals(ORDERS + 2, snapshotEnd(inc, "shop.orders").path("rows").asLong());
        assertEquals(CUSTOMERS, snapshotEnd(inc, "shop.customers").path("rows").asLong());

        // A signal sent as the role (a logical message on 14+, a signal-table row before), then acted on.
        List<String> channel = major >= 14 ? List.of("--slot", "lp_cli") : List.of("--signal-table", "shop.pgrepl_signal");
        List<String> request = new ArrayList<>(List.of("snapshot", "request", url));
        request.addAll(channel);
        request.add("shop.customers");
        ok(request.toArray(String[]::new));
        List<String> accept = new ArrayList<>(List.of("stream", url, "-S", "lp_cli", "-P", "app_pub", "--accept-signals", "--idle-exit", "3"));
        if (major < 14) accept.addAll(List.of("--signal-table", "shop.pgrepl_signal"));
        List<JsonNode> signalled = lines(ok(accept.toArray(String[]::new)));
        assertEquals("completed", snapshotEnd(signalled, "shop.customers").path("status").asText(), signalled.toString());
        assertEquals(CUSTOMERS, snapshotEnd(signalled, "shop.customers").path("rows").asLong());

        JsonNode top = JSON.readTree(ok("top", url, "--once", "--json").out());
        assertTrue(top.findValuesAsText("slot_name").containsAll(List.of("lp_cli", "lp_export")), top.toString());

        ok("slot", "drop", url, "lp_export");
        ok("slot", "drop", url, "lp_cli");
        assertNull(s.scalar("SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE 'lp_%'"));
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void eachGrantLeftOutBreaksTheStepThatNeedsIt(int major) throws Exception {
        PageServer s = server(major);
        String url = s.url();

        // REPLICATION (role-streaming's attribute).
        s.sql("ALTER ROLE cdc NOREPLICATION");
        CliBridge.Result r = pgrepl("slot", "create", url, "lp_norepl", "--logical", "pgoutput");
        assertEquals(1, r.rc(), r.toString());
        assertTrue(r.err().contains("42501") && r.err().toLowerCase().contains("replication"), r.err());
        s.sql("ALTER ROLE cdc REPLICATION");

        // CONNECT (role-streaming's grant), revoked from PUBLIC by the hardening.
        s.sql("REVOKE CONNECT ON DATABASE app FROM cdc");
        r = pgrepl("identify", url);
        assertEquals(1, r.rc(), r.toString());
        assertTrue(r.err().contains("CONNECT privilege"), r.err());
        s.sql(PageServer.roleSql("role-streaming").lines().filter(l -> l.startsWith("GRANT")).findFirst().orElseThrow());
        ok("identify", url);

        // SELECT (role-snapshot): the copy fails and the new slot is dropped; streaming still works.
        s.sql("REVOKE SELECT ON shop.customers FROM cdc");
        r = pgrepl("stream", url, "-S", "lp_nosel", "-P", "app_pub", "--create-slot", "--snapshot", "--idle-exit", "2");
        assertEquals(1, r.rc(), r.toString());
        // "relation" before PostgreSQL 11
        assertTrue(r.err().matches("(?s).*permission denied for (table|relation) customers.*"), r.err());
        assertNull(s.scalar("SELECT slot_name FROM pg_replication_slots WHERE slot_name = 'lp_nosel'"), "the slot was dropped");
        ok("slot", "create", url, "lp_nosel", "--logical", "pgoutput");
        s.sql("INSERT INTO shop.customers VALUES (9001, 'streamed without SELECT', NULL)");
        // Not asked to exit 0: how a failed table ends the command is the command's business; its lines are.
        List<JsonNode> streamed = lines(pgrepl("stream", url, "-S", "lp_nosel", "-P", "app_pub", "--snapshot=incremental",
                "--snapshot-tables", "shop.customers", "--idle-exit", "3"));
        assertEquals(1, count(streamed, "insert", "customers"), "the stream needs no SELECT: " + streamed);
        JsonNode failed = snapshotEnd(streamed, "shop.customers");
        assertEquals("failed", failed.path("status").asText(), failed.toString());
        assertTrue(failed.path("error").asText().contains("permission denied"), failed.toString());
        s.sql(PageServer.roleSql("role-snapshot"));
        ok("slot", "drop", url, "lp_nosel");
        s.sql("DELETE FROM shop.customers WHERE id = 9001");

        // pg_hba.conf: a `replication` line in place of the page's database does not admit a logical connection.
        List<String> page = s.documented.pageHba();
        s.writeHba(page.stream().map(l -> l.replaceFirst("^(host\\s+)\\S+", "$1replication")).toList());
        try {
            r = pgrepl("slot", "create", url, "lp_hba", "--logical", "pgoutput");
            assertEquals(1, r.rc(), r.toString());
            assertTrue(r.err().contains("no pg_hba.conf entry"), r.err());
        } finally {
            s.writeHba(page);
        }

        // Creating the publication itself is not among the page's grants: CREATE on the database, then ownership.
        try (PgConnection c = s.connect(ReplicationMode.NONE)) {
            String e = PageServer.error(c, "CREATE PUBLICATION lp_pub FOR TABLE shop.orders");
            assertTrue(e.contains("permission denied for database"), e);
            s.sql("GRANT CREATE ON DATABASE app TO cdc");
            try {
                e = PageServer.error(c, "CREATE PUBLICATION lp_pub FOR TABLE shop.orders");
                assertTrue(e.contains("must be owner"), e);
                e = PageServer.error(c, "CREATE PUBLICATION lp_pub FOR ALL TABLES");
                assertTrue(e.contains("must be superuser"), e);
            } finally {
                s.sql("REVOKE CREATE ON DATABASE app FROM cdc");
            }
        }
        assertNotNull(s.scalar("SELECT 1 FROM pg_roles WHERE rolname = 'cdc' AND rolreplication"));
    }
}
