package io.pgrepl.testkit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a new cluster gets before its first start: the kit's settings and the three roles. */
final class ClusterSetup {
    private ClusterSetup() {
    }

    static Map<String, String> defaultSettings(PgServerSpec spec, ServerTls tls) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("listen_addresses", "127.0.0.1");
        s.put("unix_socket_directories", "");
        s.put("max_connections", "100");
        s.put("wal_level", "logical");
        s.put("max_wal_senders", "20");
        s.put("max_replication_slots", "20");
        s.put("max_prepared_transactions", "20");
        s.put("fsync", "off");
        s.put("synchronous_commit", "off");
        s.put("full_page_writes", "off");
        s.put("shared_buffers", "16MB");
        s.put("password_encryption", spec.auth().passwordEncryption());
        if (tls != null) {
            s.put("ssl", "on");
            s.put("ssl_cert_file", tls.serverCertFile().toString());
            s.put("ssl_key_file", tls.serverCertFile().resolveSibling("server.key").toString());
            s.put("ssl_ca_file", tls.caCertFile().toString());
        }
        return s;
    }

    /** Roles are made in single-user mode: no client is needed and no port is open yet. */
    static void bootstrapRoles(PgServerSpec spec, PgBinaries.Installation pg, ServerUser user, Path dataDir,
                               Path serverDir, Duration timeout) {
        String sql = "SET password_encryption = '" + spec.auth().passwordEncryption() + "'\n"
                + "ALTER ROLE " + PgServerSpec.SUPERUSER + " WITH PASSWORD " + literal(spec.superuserPassword()) + "\n"
                + "CREATE ROLE " + PgServerSpec.REPLICATION_USER + " WITH LOGIN REPLICATION PASSWORD "
                + literal(spec.replicationUser().password()) + "\n"
                + "CREATE ROLE " + PgServerSpec.PLAIN_USER + " WITH LOGIN PASSWORD "
                + literal(spec.plainUser().password()) + "\n";
        Processes.Result result = Processes.run(user.command(List.of(pg.tool("postgres"), "--single", "-D",
                dataDir.toString(), "postgres")), serverDir,
                out -> out.write(sql.getBytes(StandardCharsets.UTF_8)), timeout);
        if (!result.ok() || result.output().contains("ERROR:") || result.output().contains("FATAL:")) {
            throw new IllegalStateException("creating roles in single-user mode failed: " + redact(spec, result.describe()));
        }
    }

    private static String redact(PgServerSpec spec, String text) {
        for (PgUser u : List.of(spec.superuser(), spec.replicationUser(), spec.plainUser())) {
            text = text.replace(u.password(), "***");
        }
        return text;
    }

    private static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

}
