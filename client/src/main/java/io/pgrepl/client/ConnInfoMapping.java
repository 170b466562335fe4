package io.pgrepl.client;

import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.config.TargetSessionAttrs;
import io.pgrepl.client.internal.config.ConnInfo;
import io.pgrepl.client.internal.config.HostLists;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** libpq keyword map to {@link ConnectionConfig.Builder}, with libpq's environment defaults. */
final class ConnInfoMapping {
    /**
     * libpq's environment variables and the parameter each one defaults. PGPASSWORD is not here:
     * it is read at connect time, after the password file rules (see {@code PasswordSources}).
     */
    static final Map<String, String> ENVIRONMENT = environment();

    private ConnInfoMapping() {}

    private static Map<String, String> environment() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("PGHOST", "host");
        m.put("PGHOSTADDR", "hostaddr");
        m.put("PGPORT", "port");
        m.put("PGDATABASE", "dbname");
        m.put("PGUSER", "user");
        m.put("PGPASSFILE", "passfile");
        m.put("PGSSLMODE", "sslmode");
        m.put("PGSSLROOTCERT", "sslrootcert");
        m.put("PGSSLCERT", "sslcert");
        m.put("PGSSLKEY", "sslkey");
        m.put("PGSSLSNI", "sslsni");
        m.put("PGSSLNEGOTIATION", "sslnegotiation");
        m.put("PGAPPNAME", "application_name");
        m.put("PGCONNECT_TIMEOUT", "connect_timeout");
        m.put("PGCHANNELBINDING", "channel_binding");
        m.put("PGREQUIREAUTH", "require_auth");
        m.put("PGCLIENTENCODING", "client_encoding");
        m.put("PGMINPROTOCOLVERSION", "min_protocol_version");
        m.put("PGMAXPROTOCOLVERSION", "max_protocol_version");
        m.put("PGTARGETSESSIONATTRS", "target_session_attrs");
        m.put("PGLOADBALANCEHOSTS", "load_balance_hosts");
        return java.util.Collections.unmodifiableMap(m);
    }

    /** Parsed and validated by {@link ConnInfo} (libpq names only; errors never show the password). */
    static ConnectionConfig.Builder fromConnInfo(String text, Function<String, String> env) {
        return fromMap(withEnvironment(ConnInfo.parse(text), env).asMap());
    }

    /**
     * Fills parameters the string left out from the environment, as libpq does: a parameter
     * present in the string (even empty) wins. Validated like the string itself, so a bad
     * PGSSLMODE is an error naming sslmode.
     */
    static ConnInfo withEnvironment(ConnInfo info, Function<String, String> env) {
        ConnInfo out = info;
        for (Map.Entry<String, String> e : ENVIRONMENT.entrySet()) {
            if (info.asMap().containsKey(e.getValue())) continue;
            String v = env.apply(e.getKey());
            if (v == null || v.isEmpty()) continue;
            out = out.with(e.getValue(), v);
        }
        return out;
    }

    static ConnectionConfig.Builder fromMap(Map<String, String> m) {
        ConnectionConfig.Builder b = ConnectionConfig.builder();
        List<HostSpec> hosts = HostLists.parse(m.get("host"), m.get("hostaddr"), m.get("port"));
        if (hosts.size() > 1) b.hosts(hosts);
        boolean explicitApplicationName = m.get("application_name") != null && !m.get("application_name").isEmpty();
        for (Map.Entry<String, String> e : m.entrySet()) {
            String v = e.getValue();
            if (v.isEmpty()) continue; // libpq treats an empty value as "use the default"
            switch (e.getKey()) {
                // One server: the builder's defaults fill what is missing. Several: set above.
                case "host" -> { if (hosts.size() == 1) b.host(hosts.get(0).host()); }
                case "hostaddr" -> { if (hosts.size() == 1) b.hostAddress(hosts.get(0).hostAddress()); }
                case "port" -> { if (hosts.size() == 1) b.port(hosts.get(0).port()); }
                case "target_session_attrs" -> b.targetSessionAttrs(TargetSessionAttrs.parse(v));
                case "load_balance_hosts" -> b.loadBalanceHosts(LoadBalanceHosts.parse(v));
                case "dbname" -> b.database(v);
                case "user" -> b.user(v);
                case "password" -> b.password(v);
                case "passfile" -> b.passFile(Path.of(v));
                case "sslmode" -> b.sslMode(SslMode.parse(v));
                case "sslrootcert" -> b.sslRootCert(Path.of(v));
                case "sslcert" -> b.sslCert(Path.of(v));
                case "sslkey" -> b.sslKey(Path.of(v));
                case "sslpassword" -> b.sslPassword(v);
                case "sslsni" -> b.sslSni(!v.equals("0"));
                case "sslnegotiation" -> b.sslNegotiation(SslNegotiation.parse(v));
                case "channel_binding" -> b.channelBinding(v);
                case "require_auth" -> b.requireAuth(v);
                case "application_name" -> b.applicationName(v);
                // Only a fallback: an application_name anywhere in the string wins.
                case "fallback_application_name" -> { if (!explicitApplicationName) b.applicationName(v); }
                case "replication" -> b.replication(ReplicationMode.parse(v));
                case "connect_timeout" -> {
                    int s = parseInt("connect_timeout", v);
                    if (s > 0) b.connectTimeout(Duration.ofSeconds(Math.max(2, s)));
                }
                case "options" -> parseOptions(b, v);
                case "min_protocol_version" -> b.minProtocolVersion(ProtocolVersion.parse(v));
                case "max_protocol_version" -> b.maxProtocolVersion(ProtocolVersion.parse(v));
                // ConnInfo already refused anything but UTF8, which is what the client always sends.
                case "client_encoding" -> { }
                // ConnInfo accepts nothing else; a new keyword must be mapped here, never ignored.
                default -> throw new IllegalArgumentException("connection option \"" + e.getKey() + "\" is not supported");
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
