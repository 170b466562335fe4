package io.pgrepl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every example's {@code main}, as {@code examples/README.md} runs it, against one real
 * PostgreSQL 18 ({@code --url}). Each run's output is checked against values written by hand from
 * its workload, and none of them may print a server notice ("does not exist, skipping").
 */
class ExamplesTest {
    private static PgServer server;
    private static String url;

    @BeforeAll
    static void start() {
        server = PgServer.builder().version(18).start();
        url = server.url(server.superuser(), "postgres");
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private interface Program {
        void main(String[] args) throws Exception;
    }

    /** stdout lines of {@code program}; fails if stdout or stderr (where notices are logged) shows a notice. */
    private static List<String> run(Program program, String... extraArgs) throws Exception {
        String[] args = new String[extraArgs.length + 2];
        args[0] = "--url";
        args[1] = url;
        System.arraycopy(extraArgs, 0, args, 2, extraArgs.length);
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
        try {
            program.main(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        noSlotLeftBehind();
        String stdout = o.toString(StandardCharsets.UTF_8);
        String stderr = e.toString(StandardCharsets.UTF_8);
        err.print(stderr); // keep the log visible in the test report
        for (String s : List.of(stdout, stderr)) {
            assertFalse(s.contains("skipping"), s);
            assertFalse(s.contains("server notice"), s);
        }
        return stdout.lines().toList();
    }

    /**
     * A reader who runs an example against their own server finds no slot left holding WAL. A
     * temporary slot goes when its walsender exits, shortly after the connection closes: waited for.
     */
    private static void noSlotLeftBehind() throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                server.sql("postgres", "DO $$ BEGIN IF EXISTS (SELECT FROM pg_replication_slots) THEN RAISE EXCEPTION"
                        + " 'slots left: %', (SELECT string_agg(slot_name, ',') FROM pg_replication_slots); END IF; END $$");
                return;
            } catch (Exception left) {
                if (System.nanoTime() > deadline) throw left;
                Thread.sleep(50);
            }
        }
    }

    private static String last(List<String> lines) {
        return lines.get(lines.size() - 1);
    }

    @Test
    void rowCountsPerTable() throws Exception {
        List<String> lines = run(RowCountsPerTable::main);
        // 20 transactions of one customer and 50 orders
        assertTrue(lines.contains("rows per table: {public.ex_customers=20, public.ex_orders=1000}"), lines.toString());
    }

    @Test
    void reactorBackpressure() throws Exception {
        List<String> lines = run(ReactorBackpressure::main);
        assertTrue(last(lines).startsWith("3010 inserts; peak queue "), last(lines)); // 10 x (1 + 300)
    }

    @Test
    void reactorViews() throws Exception {
        List<String> lines = run(ReactorViews::main);
        // 10 customers of 300 orders; the 10th commit is not read: take() cancels at the last order
        assertTrue(last(lines).startsWith("3000 orders from 10 customers; 9 commits acknowledged; peak queue "), last(lines));
    }

    @Test
    void fileSinkPipelineKeepsTheFileItIsGiven(@TempDir Path dir) throws Exception {
        Path sink = dir.resolve("sink.txt");
        List<String> lines = run(FileSinkPipeline::main, "--out", sink.toString());
        // 30 transactions of one customer and 100 orders: one line per inserted row
        assertTrue(last(lines).matches("30 transactions in \\d+ batches, 3030 lines in " + java.util.regex.Pattern.quote(sink.toString())),
                last(lines));
        assertEquals(3030, Files.readAllLines(sink).size(), "the named sink is kept");
    }

    @Test
    void fileSinkPipelineSaysItRemovesItsTemporaryFile() throws Exception {
        List<String> lines = run(FileSinkPipeline::main);
        String removed = last(lines);
        assertTrue(removed.startsWith("removed the temporary sink "), removed);
        Path temp = Path.of(removed.substring("removed the temporary sink ".length(), removed.indexOf(" (--out FILE")));
        assertFalse(Files.exists(temp), temp + " was said to be removed");
    }

    /** Column name to "type -> JavaType value", from the example's aligned table. */
    private static Map<String, String> typedColumns(List<String> lines) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.trim().split("\\s+", 5);
            m.put(f[0], f[1] + " " + f[2] + " " + f[3] + " " + f[4]);
        }
        return m;
    }

    private static final Map<String, String> TYPED = new LinkedHashMap<>();

    static {
        TYPED.put("id", "int4 -> Integer 1");
        TYPED.put("small", "int2 -> Short -32768");
        TYPED.put("big", "int8 -> Long 9007199254740993");
        TYPED.put("ratio", "float8 -> Double 0.1");
        TYPED.put("price", "numeric -> BigDecimal 12345.678900");
        TYPED.put("flag", "bool -> Boolean true");
        TYPED.put("label", "varchar -> String héllo");
        TYPED.put("blob", "bytea -> byte[] 0xdeadbeef");
        TYPED.put("uid", "uuid -> UUID a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        TYPED.put("day", "date -> LocalDate 2024-02-29");
        TYPED.put("at_time", "time -> LocalTime 23:59:59.999999");
        TYPED.put("local_ts", "timestamp -> LocalDateTime 2024-02-29T12:00");
        TYPED.put("ts", "timestamptz -> Instant 2024-02-29T11:00:00Z");
        TYPED.put("span", "interval -> PgInterval PgInterval[months=14, days=3, micros=14706500000]");
        TYPED.put("doc", "jsonb -> String {\"a\": [1, 2]}");
        TYPED.put("counts", "int4[] -> List [1, null, 3]");
        TYPED.put("grid", "text[] -> List [[a, b], [c, d]]");
        TYPED.put("pos", "pg_lsn -> Lsn 16/B374D848");
    }

    @Test
    void typedValuesInTextFormat() throws Exception {
        List<String> lines = run(TypedValues::main);
        assertTrue(lines.get(0).startsWith("text format, commit "), lines.get(0));
        assertEquals(TYPED, typedColumns(lines));
    }

    @Test
    void typedValuesInBinaryFormatAreTheSame() throws Exception {
        List<String> lines = run(TypedValues::main, "--binary");
        assertTrue(lines.get(0).startsWith("binary format, commit "), lines.get(0));
        assertEquals(TYPED, typedColumns(lines));
    }
}
