package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.TlsOptions;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What pgrepl's connection knows reaches the connector through 'url': a server that accepts TLS
 * only (hostssl, an ECDSA certificate), SCRAM with channel binding required, certificate and host
 * name verified, and two hosts of which the first refuses the connection.
 */
class ConnectionOptionsTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static PgServer pg;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.builder().version(18).auth(AuthMethod.SCRAM_SHA_256).tls(TlsOptions.ecdsaSha384().hostsslOnly(true)).start();
        Fixture.createTable(pg, "public.\"Tls Rows\"", 500);
    }

    @AfterAll
    static void stop() {
        if (pg != null) pg.close();
    }

    @Test
    void tlsScramChannelBindingAndAHostListThroughUrl() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort(); // nothing listens here once closed
        }
        String ca = pg.tls().orElseThrow().caCertFile().toString();
        String url = "postgresql://" + pg.superuser().name() + "@localhost:" + closed + ",localhost:" + pg.port() + "/postgres"
                + "?sslmode=verify-full&channel_binding=require&target_session_attrs=read-write&sslrootcert="
                + URLEncoder.encode(ca, StandardCharsets.UTF_8);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.executeSql("CREATE TABLE tls_rows (id INT, amount DECIMAL(12, 3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'pgrepl',"
                + " 'url' = '" + url + "', 'password' = '" + pg.superuser().password() + "', 'table-name' = 'Tls Rows',"
                + " 'slot.name' = 'tls_rows', 'scan.startup.mode' = 'snapshot', 'scan.incremental.snapshot.chunk.size' = '100')");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SELECT COUNT(*), SUM(amount) FROM tls_rows").collect()) {
            it.forEachRemaining(rows::add);
        }
        Row last = rows.get(rows.size() - 1);
        io.pgrepl.client.Row expected = Fixture.query(pg, "SELECT count(*), sum(amount) FROM public.\"Tls Rows\"").get(0);
        assertEquals(expected.get(0) + " " + expected.get(1), last.getField(0) + " " + last.getField(1));
    }
}
