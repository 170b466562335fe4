package io.pgrepl.client;

import io.pgrepl.client.config.SslMode;

import java.nio.file.Path;
import java.time.Duration;
import io.pgrepl.client.config.ConnInfo;
import java.util.Map;

/** libpq keyword map to {@link ConnectionConfig.Builder}. */
final class ConnInfoMapping {
    private ConnInfoMapping() {}

    /** Parsed and validated by {@link ConnInfo} (libpq names only; errors never show the password). */
    static ConnectionConfig.Builder fromConnInfo(String text) {
        return fromMap(ConnInfo.parse(text).asMap());
    }

    static ConnectionConfig.Builder fromMap(Map<String, String> m) {
        ConnectionConfig.Builder b = ConnectionConfig.builder();
        for (Map.Entry<String, String> e : m.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case "host" -> b.host(v);
                case "hostaddr" -> b.hostAddress(v);
                case "port" -> b.port(parseInt("port", v));
                case "dbname" -> b.database(v);
                case "user" -> b.user(v);
                case "password" -> b.password(v);
                case "passfile" -> b.passFile(Path.of(v));
                case "sslmode" -> b.sslMode(SslMode.parse(v));
                case "sslrootcert" -> b.sslRootCert(Path.of(v));
                case "sslcert" -> b.sslCert(Path.of(v));
                case "sslkey" -> b.sslKey(Path.of(v));
                case "sslsni" -> b.sslSni(!v.equals("0"));
                case "sslnegotiation" -> b.sslNegotiation(SslNegotiation.parse(v));
                case "channel_binding" -> b.channelBinding(v);
                case "require_auth" -> b.requireAuth(v);
                case "application_name", "fallback_application_name" -> b.applicationName(v);
                case "replication" -> b.replication(ReplicationMode.parse(v));
                case "connect_timeout" -> {
                    int s = parseInt("connect_timeout", v);
                    if (s > 0) b.connectTimeout(Duration.ofSeconds(Math.max(2, s)));
                }
                case "options" -> parseOptions(b, v);
                default -> { } // accepted by libpq but without effect here (keepalives, target_session_attrs...)
            }
        }
        return b;
    }

    /** libpq {@code options}: "-c name=value" pairs become startup GUCs. */
    private static void parseOptions(ConnectionConfig.Builder b, String v) {
        String[] words = v.trim().split("\\s+");
        for (int i = 0; i < words.length; i++) {
            String w = words[i];
            String kv = null;
            if (w.equals("-c") && i + 1 < words.length) kv = words[++i];
            else if (w.startsWith("-c")) kv = w.substring(2);
            else if (w.startsWith("--")) kv = w.substring(2);
            if (kv == null || kv.indexOf('=') <= 0) {
                if (!w.isEmpty()) throw new IllegalArgumentException("unsupported entry in options: " + w);
                continue;
            }
            b.startupParameter(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
    }

    private static int parseInt(String key, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid integer value \"" + v + "\" for connection option \"" + key + "\"");
        }
    }
}
