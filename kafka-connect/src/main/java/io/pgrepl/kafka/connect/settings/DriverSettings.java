package io.pgrepl.kafka.connect.settings;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.config.TargetSessionAttrs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * pgJDBC's connection properties, which Debezium hands its driver from every {@code database.*}
 * (and {@code driver.*}) key it does not read itself. pgrepl has no JDBC driver: a property that
 * changes what goes over the wire is mapped to the same thing on pgrepl's connections (a startup
 * parameter, the connect timeout, channel binding, which server is accepted); one that only tunes
 * pgJDBC's own statement handling (savepoints, prepared statements, fetch sizes, logging) has
 * nothing to act on and is accepted; the rest would change behaviour without a word (another
 * authentication, a socket factory) and are refused with what to use instead.
 */
public final class DriverSettings {
    private DriverSettings() {}

    private static final List<String> PREFIXES = List.of("database.", "driver.");

    /**
     * Accepted pgJDBC properties: those of {@link #MAPPED}, and those that tune only pgJDBC's statement
     * handling, logging or buffers, or pick among hosts of its URL (nothing to act on here).
     */
    private static final Set<String> ACCEPTED = Set.of("autosave", "cleanupSavepoints", "prepareThreshold",
            "preparedStatementCacheQueries", "preparedStatementCacheSizeMiB", "databaseMetadataCacheFields",
            "databaseMetadataCacheFieldsMiB", "defaultRowFetchSize", "binaryTransfer", "binaryTransferEnable",
            "binaryTransferDisable", "stringtype", "reWriteBatchedInserts", "readOnly", "readOnlyMode", "logUnclosedConnections",
            "loggerLevel", "loggerFile", "disableColumnSanitiser", "escapeSyntaxCallMode", "preferQueryMode",
            "hideUnprivilegedObjects", "logServerErrorDetail", "quoteReturningIdentifiers", "adaptiveFetch",
            "adaptiveFetchMaximum", "adaptiveFetchMinimum", "maxResultBuffer", "unknownLength", "allowEncodingChanges",
            "receiveBufferSize", "sendBufferSize", "socketTimeout", "cancelSignalTimeout", "hostRecheckSeconds",
            "loadBalanceHosts", "groupStartupParameters", "xmlFactoryFactory", "tcpNoDelay", "assumeMinServerVersion",
            "sslResponseTimeout", "ApplicationName", "connectTimeout", "loginTimeout", "options", "currentSchema",
            "channelBinding", "targetServerType");

    /** Those of {@link #ACCEPTED} that are mapped onto pgrepl's connections. */
    private static final Set<String> MAPPED = Set.of("ApplicationName", "connectTimeout", "loginTimeout", "options",
            "currentSchema", "channelBinding", "targetServerType");

    /** Refused pgJDBC properties and what to do instead. */
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("sslfactoryarg", "pgrepl speaks TLS itself, without pgJDBC's socket factories: use sslmode, sslrootcert,"
                    + " sslcert and sslkey"),
            Map.entry("sslhostnameverifier", "sslmode=verify-full checks the host name as libpq does; verify-ca skips it"),
            Map.entry("sslpasswordcallback", "give the key's password in database.sslpassword"),
            Map.entry("socketFactory", "pgrepl opens its own sockets: remove it"),
            Map.entry("socketFactoryArg", "pgrepl opens its own sockets: remove it"),
            Map.entry("localSocketAddress", "pgrepl binds no local address: remove it"),
            Map.entry("authenticationPluginClassName", "use database.oauth.token.file or database.oauth.token.provider.class"
                    + " for tokens, database.password otherwise"),
            Map.entry("gssEncMode", "pgrepl has no GSSAPI encryption: use sslmode"),
            Map.entry("gsslib", "pgrepl has no GSSAPI or SSPI authentication: use password, SCRAM, certificate or OAuth"
                    + " authentication"),
            Map.entry("kerberosServerName", "pgrepl has no Kerberos authentication: use password, SCRAM, certificate or OAuth"
                    + " authentication"),
            Map.entry("jaasApplicationName", "pgrepl has no Kerberos authentication: use password, SCRAM, certificate or"
                    + " OAuth authentication"),
            Map.entry("jaasLogin", "pgrepl has no Kerberos authentication: use password, SCRAM, certificate or OAuth"
                    + " authentication"),
            Map.entry("useSpnego", "pgrepl has no SSPI authentication: use password, SCRAM, certificate or OAuth authentication"),
            Map.entry("gssResponseTimeout", "pgrepl has no GSSAPI authentication: remove it"),
            Map.entry("replication", "pgrepl opens the replication connection itself (replication=database): remove it"),
            Map.entry("protocolVersion", "pgrepl negotiates the protocol version itself; database.url's"
                    + " min_protocol_version and max_protocol_version bound it"),
            Map.entry("sslNegotiation", "set sslnegotiation in database.url (postgres or direct)"),
            Map.entry("service", "pgrepl reads no service file: give the connection in database.url or database.hostname"));

    /** {@return the pgJDBC property a key names (without its prefix), or null when it names none pgrepl knows} */
    static String property(String key) {
        for (String p : PREFIXES) {
            if (key.startsWith(p)) {
                String name = key.substring(p.length());
                if (ACCEPTED.contains(name) || REFUSED.containsKey(name)) return name;
            }
        }
        return null;
    }

    /** {@return why {@code key=value} is refused, or null: accepted (mapped, or no effect); only for keys {@link #property} names} */
    static String refusal(String key, String value) {
        String name = property(key);
        if (name == null) return null;
        if (REFUSED.containsKey(name)) {
            return key + " is a pgJDBC property pgrepl (which has no JDBC driver) does not support: " + REFUSED.get(name);
        }
        if (!MAPPED.contains(name)) return null;
        String v = value == null ? "" : value.trim();
        try {
            switch (name) {
                case "connectTimeout", "loginTimeout" -> {
                    if (Integer.parseInt(v) < 0) throw new NumberFormatException();
                }
                case "channelBinding" -> {
                    if (!Set.of("disable", "prefer", "require").contains(v)) {
                        return key + "=" + v + " is not a channel binding mode: disable, prefer or require";
                    }
                }
                case "targetServerType" -> {
                    if (target(v) == null) {
                        return key + "=" + v + " is not supported by pgrepl (only any, primary or secondary): set"
                                + " target_session_attrs in database.url (read-write, read-only, primary, standby,"
                                + " prefer-standby)";
                    }
                }
                default -> { }
            }
        } catch (NumberFormatException e) {
            return key + "=" + v + " is not a number of seconds (0 or more)";
        }
        return null;
    }

    /** pgJDBC's targetServerType as libpq's target_session_attrs (pgJDBC tells a primary by read-write sessions). */
    private static TargetSessionAttrs target(String v) {
        return switch (v) {
            case "any" -> TargetSessionAttrs.ANY;
            case "primary", "master" -> TargetSessionAttrs.READ_WRITE;
            case "secondary", "slave" -> TargetSessionAttrs.READ_ONLY;
            default -> null;
        };
    }

    /** The mapped properties of {@code props}, by pgJDBC name (the last key wins when both prefixes give one). */
    private static Map<String, String> mapped(Map<String, ?> props) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, ?> e : props.entrySet()) {
            String name = property(e.getKey());
            if (name != null && MAPPED.contains(name) && e.getValue() != null && !e.getValue().toString().isBlank()) {
                out.put(name, e.getValue().toString().trim());
            }
        }
        return out;
    }

    /** Puts the mapped properties onto a connection's settings (the replication connection's and the data connections'). */
    public static ConnectionConfig.Builder apply(Map<String, ?> props, ConnectionConfig.Builder b) {
        Map<String, String> m = mapped(props);
        if (m.containsKey("ApplicationName")) b.applicationName(m.get("ApplicationName"));
        Duration t = timeout(m);
        if (t != null) b.connectTimeout(t);
        if (m.containsKey("channelBinding")) b.channelBinding(m.get("channelBinding"));
        if (m.containsKey("targetServerType")) b.targetSessionAttrs(target(m.get("targetServerType")));
        if (m.containsKey("options")) b.startupParameter("options", m.get("options"));
        if (m.containsKey("currentSchema")) b.startupParameter("search_path", m.get("currentSchema"));
        return b;
    }

    /** connectTimeout, else loginTimeout (both bound the whole connection set-up); 0 is pgJDBC's "no limit". */
    private static Duration timeout(Map<String, String> m) {
        String s = m.getOrDefault("connectTimeout", m.get("loginTimeout"));
        if (s == null) return null;
        int seconds = Integer.parseInt(s);
        return seconds == 0 ? Duration.ofDays(365) : Duration.ofSeconds(seconds);
    }

    /**
     * Mapped properties that say something else than database.url: one of the two would be
     * ignored, so both are named. Only what the URL sets is compared.
     */
    static Map<String, List<String>> conflicts(Map<String, ?> props, ConnectionConfig url) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        Map<String, String> m = mapped(props);
        ConnectionConfig given = apply(props, url.toBuilder()).build();
        ConnectionConfig defaults = ConnectionConfig.builder().build();
        check(out, props, "ApplicationName", "application_name", url.applicationName(), given.applicationName(), null, m);
        check(out, props, "connectTimeout", "connect_timeout", url.connectTimeout(), given.connectTimeout(),
                defaults.connectTimeout(), m);
        check(out, props, "loginTimeout", "connect_timeout", url.connectTimeout(), given.connectTimeout(),
                defaults.connectTimeout(), m);
        check(out, props, "channelBinding", "channel_binding", url.channelBinding(), given.channelBinding(),
                defaults.channelBinding(), m);
        check(out, props, "targetServerType", "target_session_attrs", url.targetSessionAttrs(), given.targetSessionAttrs(),
                defaults.targetSessionAttrs(), m);
        check(out, props, "options", "options", url.startupParameters().get("options"),
                given.startupParameters().get("options"), null, m);
        check(out, props, "currentSchema", "search_path", url.startupParameters().get("search_path"),
                given.startupParameters().get("search_path"), null, m);
        return out;
    }

    private static void check(Map<String, List<String>> out, Map<String, ?> props, String name, String urlKey, Object inUrl,
                              Object given, Object dflt, Map<String, String> m) {
        if (!m.containsKey(name) || inUrl == null || Objects.equals(inUrl, dflt) || Objects.equals(inUrl, given)) return;
        for (String p : PREFIXES) {
            String key = p + name;
            if (props.containsKey(key)) {
                out.computeIfAbsent(key, k -> new ArrayList<>()).add(key + " conflicts with database.url's " + urlKey
                        + ": give it in one place, database.url or " + key);
            }
        }
    }
}
