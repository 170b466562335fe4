package io.pgrepl.client.internal.config;

import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.auth.RequireAuth;
import io.pgrepl.client.config.ConnInfoException;
import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.config.TargetSessionAttrs;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Connection parameters under libpq's names, parsed from a connection URI
 * ({@code postgresql://user:password@host:port/dbname?param=value}) or a keyword/value string
 * ({@code host=localhost port=5432 password='it''s'}), validated, in the order given.
 *
 * <p>Only the parameters this project implements are accepted; anything else is a clear error
 * naming the parameter. Several hosts are comma-separated lists ({@code host=a,b port=5432,5433}),
 * paired by {@link HostLists}. A later occurrence of a parameter overrides
 * an earlier one, as in libpq. Error messages and {@link #toString()} never show the password.
 */
public final class ConnInfo {
    /** Accepted parameter names (libpq spelling). */
    public static final Set<String> SUPPORTED_PARAMETERS = ConnInfoParameters.NAMES;

    /** The port libpq uses when none is given. */
    public static final int DEFAULT_PORT = ConnInfoParameters.DEFAULT_PORT;

    private final Map<String, String> params;

    private ConnInfo(Map<String, String> params) {
        this.params = Collections.unmodifiableMap(params);
    }

    /**
     * Parses a URI (if it starts with {@code postgresql://} or {@code postgres://}) or a keyword/value string.
     *
     * @param connectionString the URI or key=value string
     * @return the parameters, validated
     * @throws ConnInfoException if a parameter is unknown or a value is invalid (the message never shows a password)
     */
    public static ConnInfo parse(String connectionString) {
        String s = connectionString.strip();
        if (s.regionMatches(true, 0, "jdbc:", 0, 5)) {
            // Nothing after the prefix is echoed: JDBC URLs carry the password as a query parameter.
            throw new ConnInfoException("a JDBC URL is not a libpq connection string: drop the \"jdbc:\" prefix"
                    + " (postgresql://user@host:port/dbname?param=value)");
        }
        if (s.startsWith("postgresql://") || s.startsWith("postgres://")) {
            return parseUri(s);
        }
        notAConnectionString(s);
        return parseKeywordValue(s);
    }

    private static final String EXPECTED = "expected a URI (postgresql://user@host:5432/dbname) or keyword/value pairs"
            + " (host=... port=5432 dbname=...)";

    /**
     * Refuses, with what it looks like, text that is neither form: another scheme's URL, or a single
     * word without "=" such as {@code localhost:5432}. The keyword/value parser would only say that
     * an "=" is missing at position 0. Only a scheme name or a host:port is echoed (a URL may
     * carry a password).
     */
    private static void notAConnectionString(String s) {
        int scheme = s.indexOf("://");
        if (scheme > 0 && s.substring(0, scheme).matches("[A-Za-z][A-Za-z0-9+.-]{0,19}")) {
            throw new ConnInfoException("a " + s.substring(0, scheme) + ":// URL is not a PostgreSQL connection string: " + EXPECTED);
        }
        if (s.isEmpty() || s.indexOf('=') >= 0 || s.chars().anyMatch(Character::isWhitespace)) {
            return; // keyword/value text: its parser names what is wrong, and where
        }
        if (s.matches("[A-Za-z0-9._\\-]{1,63}:[0-9]{1,5}(/[A-Za-z0-9_]{0,63})?")) {
            throw new ConnInfoException("\"" + s + "\" looks like host:port, not a connection string: " + EXPECTED
                    + ", e.g. postgresql://" + s + (s.indexOf('/') < 0 ? "/dbname" : ""));
        }
        if (s.matches("[A-Za-z0-9._\\-]{1,63}")) {
            // Not echoed: a lone word might as well be a password pasted in the wrong place.
            throw new ConnInfoException("a single word is not a connection string: " + EXPECTED
                    + ", e.g. host=NAME or dbname=NAME");
        }
        throw new ConnInfoException("not a connection string (no \"=\" and no postgresql:// prefix): " + EXPECTED);
    }

    /**
     * Builds from a map of libpq names to values, with the same validation.
     *
     * @param parameters libpq keyword names to values
     * @return the parameters, validated
     * @throws ConnInfoException if a parameter is unknown or a value is invalid (the message never shows a password)
     */
    public static ConnInfo of(Map<String, String> parameters) {
        LinkedHashMap<String, String> copy = new LinkedHashMap<>();
        parameters.forEach((k, v) -> ConnInfoParameters.put(copy, k, v));
        return validated(copy);
    }

    /**
     * A copy with one parameter set (validated).
     *
     * @param name  the libpq keyword
     * @param value its value
     * @return the new parameters
     * @throws ConnInfoException if a parameter is unknown or a value is invalid (the message never shows a password)
     */
    public ConnInfo with(String name, String value) {
        LinkedHashMap<String, String> copy = new LinkedHashMap<>(params);
        ConnInfoParameters.put(copy, name, value);
        return validated(copy);
    }

    /**
     * Parses {@code key=value key2='quoted \' value'}; backslash escapes the next character.
     *
     * @param s the key=value string
     * @return the parameters, validated
     * @throws ConnInfoException if a parameter is unknown or a value is invalid (the message never shows a password)
     */
    public static ConnInfo parseKeywordValue(String s) {
        return validated(ConnInfoKeywordValue.parse(s));
    }

    /**
     * Parses {@code postgresql://[user[:password]@][host][:port][,host[:port]...][/dbname][?param=value&...]}.
     *
     * @param uri the URI; percent-encoding is decoded
     * @return the parameters, validated
     * @throws ConnInfoException if a parameter is unknown or a value is invalid (the message never shows a password)
     */
    public static ConnInfo parseUri(String uri) {
        return validated(ConnInfoUri.parse(uri));
    }

    // ---- validation -----------------------------------------------------------------------

    private static ConnInfo validated(LinkedHashMap<String, String> p) {
        HostLists.parse(p.get("host"), p.get("hostaddr"), p.get("port"));
        String tsa = p.get("target_session_attrs");
        if (tsa != null && !tsa.isEmpty()) {
            TargetSessionAttrs.parse(tsa);
        }
        String lb = p.get("load_balance_hosts");
        if (lb != null && !lb.isEmpty()) {
            LoadBalanceHosts.parse(lb);
        }
        String timeout = p.get("connect_timeout");
        if (timeout != null && !timeout.isEmpty() && integer("connect_timeout", timeout) < 0) {
            throw new ConnInfoException("invalid integer value \"" + ConnInfoParameters.printable(timeout) + "\" for connection option \"connect_timeout\"");
        }
        String sslmode = p.get("sslmode");
        SslMode mode = sslmode == null || sslmode.isEmpty() ? SslMode.PREFER : SslMode.parse(sslmode);
        oneOf(p, "sslnegotiation", "postgres", "direct");
        if ("direct".equals(p.get("sslnegotiation")) && !mode.requiresEncryption()) {
            throw new ConnInfoException("weak sslmode \"" + mode.keyword()
                    + "\" may not be used with sslnegotiation=direct (use \"require\", \"verify-ca\", or \"verify-full\")");
        }
        oneOf(p, "sslsni", "0", "1");
        String cb = p.get("channel_binding");
        if (cb != null && !cb.isEmpty()) {
            try {
                ChannelBindingMode.parse(cb);
            } catch (IllegalArgumentException e) {
                throw new ConnInfoException(e.getMessage());
            }
        }
        try {
            RequireAuth.parse(p.get("require_auth"));
        } catch (IllegalArgumentException e) {
            throw new ConnInfoException(e.getMessage());
        }
        String repl = p.get("replication");
        if (repl != null && !repl.isEmpty()) {
            String r = repl.toLowerCase(Locale.ROOT);
            if (!List.of("true", "on", "yes", "1", "false", "off", "no", "0", "database").contains(r)) {
                throw new ConnInfoException("invalid replication value: \"" + ConnInfoParameters.printable(repl)
                        + "\" (expected database, or a boolean)");
            }
        }
        String enc = p.get("client_encoding");
        if (enc != null && !enc.isEmpty() && !List.of("utf8", "utf-8", "unicode").contains(enc.toLowerCase(Locale.ROOT))) {
            throw new ConnInfoException("unsupported client_encoding \"" + ConnInfoParameters.printable(enc)
                    + "\": this client always uses UTF8");
        }
        int min = protocol(p, "min_protocol_version", -1);
        int max = protocol(p, "max_protocol_version", -1);
        if (min >= 0 && max >= 0 && min > max) {
            throw new ConnInfoException("min_protocol_version is greater than max_protocol_version");
        }
        return new ConnInfo(p);
    }

    private static void oneOf(Map<String, String> p, String key, String... allowed) {
        String v = p.get(key);
        if (v != null && !v.isEmpty() && !List.of(allowed).contains(v)) {
            throw new ConnInfoException("invalid " + key + " value: \"" + ConnInfoParameters.printable(v) + "\" (expected "
                    + String.join(" or ", allowed) + ")");
        }
    }

    /** Protocol 3.x minor number; {@code latest} is 3.2. */
    private static int protocol(Map<String, String> p, String key, int dflt) {
        String v = p.get(key);
        if (v == null || v.isEmpty()) {
            return dflt;
        }
        switch (v) {
            case "3.0":
                return 0;
            case "3.2":
            case "latest":
                return 2;
            default:
                throw new ConnInfoException("invalid " + key + " value: \"" + ConnInfoParameters.printable(v)
                        + "\" (expected 3.0, 3.2 or latest)");
        }
    }

    private static int integer(String key, String v) {
        String t = v.strip();
        if (t.isEmpty() || t.length() > 10 || !t.chars().allMatch(c -> c >= '0' && c <= '9' || c == '-')) {
            throw new ConnInfoException("invalid integer value \"" + ConnInfoParameters.printable(v) + "\" for connection option \"" + key + "\"");
        }
        try {
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new ConnInfoException("invalid integer value \"" + ConnInfoParameters.printable(v) + "\" for connection option \"" + key + "\"");
        }
    }

    // ---- accessors ------------------------------------------------------------------------

    /**
     * All parameters, in order, unmodifiable. Contains the password if one was given.
     *
     * @return the parameters
     */
    public Map<String, String> asMap() {
        return params;
    }

    /**
     * A parameter's value; empty when absent or set to the empty string (libpq treats both as unset).
     *
     * @param name the libpq keyword
     * @return the value, or empty
     */
    public Optional<String> get(String name) {
        String v = params.get(name);
        return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    /** {@return libpq host: the host name list as given, or empty} */
    public Optional<String> host() {
        return get("host");
    }

    /** {@return libpq hostaddr: the numeric address list as given, or empty} */
    public Optional<String> hostaddr() {
        return get("hostaddr");
    }

    /** {@return the first host's port (see {@link #hosts()} for all of them)} */
    public int port() {
        return hosts().get(0).port();
    }

    /**
     * Every server to try, in the order given: host, hostaddr and port lists paired as libpq does.
     *
     * @return the servers, at least one
     * @throws ConnInfoException if the lists do not pair up
     */
    public java.util.List<HostSpec> hosts() {
        return HostLists.parse(params.get("host"), params.get("hostaddr"), params.get("port"));
    }

    /** {@return libpq target_session_attrs, default any} */
    public TargetSessionAttrs targetSessionAttrs() {
        return get("target_session_attrs").map(TargetSessionAttrs::parse).orElse(TargetSessionAttrs.ANY);
    }

    /** {@return libpq load_balance_hosts, default disable} */
    public LoadBalanceHosts loadBalanceHosts() {
        return get("load_balance_hosts").map(LoadBalanceHosts::parse).orElse(LoadBalanceHosts.DISABLE);
    }

    /** {@return libpq dbname, or empty (libpq then uses the user name)} */
    public Optional<String> dbname() {
        return get("dbname");
    }

    /** {@return libpq user, or empty (libpq then uses the OS user)} */
    public Optional<String> user() {
        return get("user");
    }

    /** {@return libpq password, or empty (then PGPASSWORD or the password file)} */
    public Optional<String> password() {
        return get("password");
    }

    /** {@return libpq sslmode, default prefer} */
    public SslMode sslMode() {
        return get("sslmode").map(SslMode::parse).orElse(SslMode.PREFER);
    }

    /** {@return libpq channel_binding, default prefer} */
    public ChannelBindingMode channelBinding() {
        return get("channel_binding").map(ChannelBindingMode::parse).orElse(ChannelBindingMode.PREFER);
    }

    /** {@return libpq require_auth, parsed; no restriction when unset} */
    public RequireAuth requireAuth() {
        return RequireAuth.parse(params.get("require_auth"));
    }

    /**
     * libpq semantics: absent or 0 means wait indefinitely; 1 is raised to 2 seconds.
     *
     * @return the limit, or empty for none
     */
    public Optional<Duration> connectTimeout() {
        return get("connect_timeout").map(v -> Integer.parseInt(v.strip())).filter(v -> v > 0)
                .map(v -> Duration.ofSeconds(Math.max(v, 2)));
    }

    /**
     * Minor protocol version from {@code min_protocol_version}: 0 for 3.0, 2 for 3.2/latest; empty when unset.
     *
     * @return the minor version, or empty
     */
    public Optional<Integer> minProtocolMinor() {
        int v = protocol(params, "min_protocol_version", -1);
        return v < 0 ? Optional.empty() : Optional.of(v);
    }

    /**
     * Minor protocol version from {@code max_protocol_version} (libpq 18 defaults to 3.0 when unset).
     *
     * @return the minor version, or empty
     */
    public Optional<Integer> maxProtocolMinor() {
        int v = protocol(params, "max_protocol_version", -1);
        return v < 0 ? Optional.empty() : Optional.of(v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnInfo && ((ConnInfo) o).params.equals(params);
    }

    @Override
    public int hashCode() {
        return params.hashCode();
    }

    /** keyword=value form with the password masked. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ConnInfo[");
        params.forEach((k, v) -> {
            if (b.length() > 9) {
                b.append(' ');
            }
            b.append(k).append('=').append(k.equals("password") || k.equals("sslpassword") ? "********" : v);
        });
        return b.append(']').toString();
    }
}
