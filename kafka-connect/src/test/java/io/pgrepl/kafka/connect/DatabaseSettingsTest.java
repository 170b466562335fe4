package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.ServerTls;
import io.pgrepl.testkit.TlsOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Debezium's connection settings against a real TLS server: a Debezium configuration (no
 * database.url) connects with the security it asks for and never less, conflicts with database.url
 * are refused, and database.initial.statements' SET statements reach the connections that read rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseSettingsTest {
    private PgServer pg;
    private ServerTls tls;

    @BeforeAll
    void start() throws Exception {
        pg = PgServer.start(PgServer.builder().version(18).tls(TlsOptions.rsaSha256()).build());
        tls = pg.tls().orElseThrow();
        EndToEndTest.sql(pg, "CREATE ROLE db_reader; CREATE SCHEMA \"My Schema\"");
    }

    @AfterAll
    void stop() {
        if (pg != null) pg.close();
    }

    /** Debezium's keys, as a Debezium configuration has them. */
    private Map<String, String> debezium() {
        Map<String, String> c = new HashMap<>();
        c.put("database.hostname", "localhost");
        c.put("database.port", String.valueOf(pg.port()));
        c.put("database.user", pg.superuser().name());
        c.put("database.password", pg.superuser().password());
        c.put("database.dbname", "postgres");
        c.put("slot.name", "dbset_slot");
        c.put("publication.name", "dbset_pub");
        c.put("snapshot.mode", "never");
        c.put("topic.prefix", "dbset");
        return c;
    }

    private static Map<String, List<String>> errors(Map<String, String> c) {
        Map<String, List<String>> m = new HashMap<>();
        for (ConfigValue v : new PgreplSourceConnector().validate(c).configValues()) {
            if (!v.errorMessages().isEmpty()) m.put(v.name(), v.errorMessages());
        }
        return m;
    }

    private static Row one(ConnectionConfig cfg, String sql) throws Exception {
        try (PgConnection c = PgConnection.connect(cfg).toCompletableFuture().get(30, TimeUnit.SECONDS)) {
            return c.query(sql).toCompletableFuture().get(30, TimeUnit.SECONDS).singleRow();
        }
    }

    private static final String SSL_OF_SESSION = "SELECT ssl::text, coalesce(client_dn, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()";

    @Test
    void debeziumsVerifyFullConnectsOverVerifiedTls() throws Exception {
        Map<String, String> c = debezium();
        c.put("database.sslmode", "verify-full");
        c.put("database.sslrootcert", tls.caCertFile().toString());
        assertEquals(Map.of(), errors(c));
        PgreplConnectorConfig config = new PgreplConnectorConfig(c);
        assertEquals(ReplicationMode.DATABASE, config.connectionConfig().replication());
        Row r = one(config.dataConnectionConfig(), SSL_OF_SESSION);
        assertEquals("true", r.get(0));
    }

    @Test
    void verifyFullWithAnotherCaIsRefusedNotDowngraded() {
        Map<String, String> c = debezium();
        c.put("database.sslmode", "verify-full");
        c.put("database.sslrootcert", tls.clientCertFile().toString()); // a leaf certificate, not the server's CA
        Map<String, List<String>> e = errors(c);
        assertEquals(List.of("database.hostname"), List.copyOf(e.keySet()), e.toString());
        assertTrue(e.get("database.hostname").get(0).startsWith("cannot connect"), e.toString());
    }

    @Test
    void clientCertificatesAreSent() throws Exception {
        Map<String, String> c = debezium();
        c.put("database.sslmode", "require");
        c.put("database.sslcert", tls.clientCert(pg.superuser()).certFile().toString());
        c.put("database.sslkey", tls.clientCert(pg.superuser()).keyFile().toString());
        Row r = one(new PgreplConnectorConfig(c).dataConnectionConfig(), SSL_OF_SESSION);
        assertEquals("true", r.get(0));
        assertTrue(r.get(1).contains(pg.superuser().name()), r.get(1));
    }

    /** A URL without sslmode means prefer: a database.sslmode beside it that asks for more is a conflict, not an upgrade nor a downgrade. */
    @Test
    void aPartThatDisagreesWithTheUrlIsRefused() {
        Map<String, String> c = debezium();
        c.put("database.url", "postgresql://" + pg.superuser().name() + "@localhost:" + pg.port() + "/postgres");
        c.put("database.sslmode", "verify-full");
        c.put("database.sslrootcert", tls.caCertFile().toString());
        Map<String, List<String>> e = errors(c);
        assertEquals(java.util.Set.of("database.sslmode", "database.sslrootcert"), e.keySet(), e.toString());
        assertTrue(e.get("database.sslmode").get(0).contains("conflicts with database.url (sslmode=prefer)"), e.toString());
        assertThrows(ConfigException.class, () -> new PgreplSourceConnector().start(c));
        // Saying the same thing twice is no conflict.
        c.put("database.url", "postgresql://" + pg.superuser().name() + "@localhost:" + pg.port() + "/postgres?sslmode=verify-full"
                + "&sslrootcert=" + tls.caCertFile());
        assertEquals(Map.of(), errors(c));
        c.put("database.port", "1");
        assertEquals(List.of("database.port"), List.copyOf(errors(c).keySet()));
    }

    @Test
    void neitherUrlNorHostnameIsNamed() {
        Map<String, String> c = debezium();
        c.remove("database.hostname");
        Map<String, List<String>> e = errors(c);
        assertEquals(List.of("database.url"), List.copyOf(e.keySet()), e.toString());
        assertTrue(e.get("database.url").get(0).contains("database.hostname"), e.toString());
    }

    @Test
    void setStatementsBecomeSessionParametersOfDataConnections() throws Exception {
        Map<String, String> c = debezium();
        c.put("database.initial.statements", "SET ROLE db_reader; SET statement_timeout = '1234ms';"
                + "SET search_path TO \"My Schema\", public; set application_name = 'a;;b'");
        assertEquals(Map.of(), errors(c));
        PgreplConnectorConfig config = new PgreplConnectorConfig(c);
        Row r = one(config.dataConnectionConfig(), "SELECT current_user::text, current_setting('statement_timeout'),"
                + " current_setting('search_path'), current_setting('application_name')");
        assertEquals(List.of("db_reader", "1234ms", "\"My Schema\", public", "a;b"),
                List.of(r.get(0), r.get(1), r.get(2), r.get(3)));
        // The replication connection keeps the configured user: slot creation needs its REPLICATION right.
        ConnectionConfig plain = config.connectionConfig().toBuilder().replication(ReplicationMode.NONE).build();
        assertEquals(pg.superuser().name(), one(plain, "SELECT current_user::text").get(0));
    }

    @Test
    void anyOtherStatementIsRefusedWithoutEchoingIt() {
        Map<String, String> c = debezium();
        c.put("database.initial.statements", "SET ROLE db_reader; ALTER ROLE x PASSWORD 'hunter2'");
        Map<String, List<String>> e = errors(c);
        assertEquals(List.of("database.initial.statements"), List.copyOf(e.keySet()), e.toString());
        String m = e.get("database.initial.statements").get(0);
        assertTrue(m.contains("statement 2 (ALTER ...)"), m);
        assertFalse(m.contains("hunter2"), m);
    }

    /**
     * pgJDBC properties Debezium passes through: those with a meaning on the wire reach pgrepl's
     * connections (the replication connection's application_name as pg_stat_replication shows it),
     * those of pgJDBC's statement handling are accepted, the rest refused naming what to use.
     */
    @Test
    void pgJdbcPropertiesAreMappedAcceptedOrRefused() throws Exception {
        Map<String, String> c = debezium();
        c.put("database.autosave", "conservative");
        c.put("database.prepareThreshold", "0");
        c.put("database.tcpKeepAlive", "false");
        c.put("database.socketTimeout", "30");
        c.put("database.ApplicationName", "dbz app");
        c.put("database.options", "-c statement_timeout=4321");
        c.put("database.currentSchema", "\"My Schema\",public");
        c.put("driver.connectTimeout", "7");
        assertEquals(Map.of(), errors(c));
        PgreplConnectorConfig config = new PgreplConnectorConfig(c);
        assertEquals(java.time.Duration.ofSeconds(7), config.connectionConfig().connectTimeout());
        Row r = one(config.dataConnectionConfig(), "SELECT current_setting('application_name'),"
                + " current_setting('statement_timeout'), current_setting('search_path')");
        assertEquals(List.of("dbz app", "4321ms", "\"My Schema\",public"), List.of(r.get(0), r.get(1), r.get(2)));
        try (PgConnection repl = PgConnection.connect(config.connectionConfig()).toCompletableFuture().get(30, TimeUnit.SECONDS)) {
            Row s = one(config.dataConnectionConfig(), "SELECT count(*)::text FROM pg_stat_activity"
                    + " WHERE backend_type = 'walsender' AND application_name = 'dbz app'");
            assertEquals("1", s.get(0), "the replication connection's application_name");
        }

        Map<String, String> refused = debezium();
        refused.put("database.gsslib", "sspi");
        refused.put("database.socketFactory", "x.Y");
        refused.put("database.targetServerType", "preferSecondary");
        refused.put("database.connectTimeout", "soon");
        Map<String, List<String>> e = errors(refused);
        assertEquals(java.util.Set.of("database.gsslib", "database.socketFactory", "database.targetServerType",
                "database.connectTimeout"), e.keySet(), e.toString());
        assertTrue(e.get("database.gsslib").get(0).contains("use password, SCRAM, certificate or OAuth"), e.toString());
        assertTrue(e.get("database.targetServerType").get(0).contains("target_session_attrs in database.url"), e.toString());
        assertThrows(ConfigException.class, () -> new PgreplSourceConnector().start(refused));

        Map<String, String> twice = debezium();
        twice.put("database.url", "postgresql://" + pg.superuser().name() + "@localhost:" + pg.port()
                + "/postgres?application_name=other");
        twice.put("database.ApplicationName", "dbz app");
        assertTrue(errors(twice).get("database.ApplicationName").get(0).contains("conflicts with database.url's application_name"),
                errors(twice).toString());
    }

    /** publication.autocreate.mode=no_tables creates a missing publication for no tables and leaves an existing one as it is. */
    @Test
    void noTablesCreatesAnEmptyPublicationAndKeepsAnExistingOne() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE nt_t (id int PRIMARY KEY); CREATE PUBLICATION nt_kept FOR TABLE nt_t");
        for (String pub : List.of("nt_new", "nt_kept")) {
            Map<String, String> c = debezium();
            c.put("publication.name", pub);
            c.put("publication.autocreate.mode", "no_tables");
            assertEquals(Map.of(), errors(c));
            PgreplConnectorConfig config = new PgreplConnectorConfig(c);
            try (PgConnection conn = ReplicationSetup.connect(config)) {
                ReplicationSetup.ensurePublication(conn, config);
            }
        }
        assertEquals(List.of("nt_new|", "nt_kept|nt_t"), EndToEndTest.query(pg, "SELECT p.pubname || '|' ||"
                + " coalesce(string_agg(t.tablename, ','), '') FROM pg_publication p LEFT JOIN pg_publication_tables t"
                + " ON t.pubname = p.pubname WHERE p.pubname LIKE 'nt\\_%' GROUP BY p.pubname ORDER BY 1 DESC").stream()
                .map(r -> r.get(0)).toList());
    }
}
