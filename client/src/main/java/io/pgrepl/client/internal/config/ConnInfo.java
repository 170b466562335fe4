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
    public static final Set<String> SUPPORTED_PARAMETERS = Collections.unmodifiableSet(new java.util.LinkedHashSet<>(List.of(
            "host", "hostaddr", "port", "dbname", "user", "password", "passfile",
            "application_name", "fallback_application_name", "options", "client_encoding", "replication",
            "connect_timeout", "sslmode", "sslnegotiation", "sslrootcert", "sslcert", "sslkey", "sslpassword",
            "sslsni", "channel_binding", "require_auth", "min_protocol_version", "max_protocol_version",
            "target_session_attrs", "load_balance_hosts")));

    /** The port libpq uses when none is given. */
    public static final int DEFAULT_PORT = 5432;

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
        return parseKeywordValue(s);
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
        parameters.forEach((k, v) -> put(copy, k, v));
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
        put(copy, name, value);
        return validated(copy);
    }

    // ---- keyword/value --------------------------------------------------------------------

    /**
     * Parses {@code key=value key2='quoted \' value'}; backslash escapes the next character.
     *
     * @param s the key=value string
     * @return the parameters, validated
     * @throws ConnInfoException if a parameter is unknown or a value is invalid (the message never shows a password)
     */
    public static ConnInfo parseKeywordValue(String s) {
        LinkedHashMap<String, String> out = new LinkedHashMap<>();
        String previousKey = null;
        int i = 0;
        int n = s.length();
        while (true) {
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int start = i;
            while (i < n && s.charAt(i) != '=' && !Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            String key = s.substring(start, i);
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            // Tokens are never echoed: a stray token is usually the tail of an unquoted password.
            if (i >= n || s.charAt(i) != '=') {
                throw new ConnInfoException("missing \"=\" after the token at position " + start
                        + (previousKey == null ? "" : " (which follows the value of \"" + previousKey + "\"; quote values that contain spaces)")
                        + " in connection info string");
            }
            if (!SUPPORTED_PARAMETERS.contains(key)) {
                String named = unknownName(key);
                throw new ConnInfoException("invalid connection option" + (named.isEmpty() ? " at position " + start : named));
            }
            previousKey = key;
            i++;
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            StringBuilder value = new StringBuilder();
            if (i < n && s.charAt(i) == '\'') {
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = s.charAt(i++);
                    if (c == '\\' && i < n) {
                        value.append(s.charAt(i++));
                    } else if (c == '\'') {
                        closed = true;
                        break;
                    } else {
                        value.append(c);
                    }
                }
                if (!closed) {
                    throw new ConnInfoException("unterminated quoted string in connection info string");
                }
            } else {
                while (i < n && !Character.isWhitespace(s.charAt(i))) {
                    char c = s.charAt(i++);
                    if (c == '\\' && i < n) {
                        value.append(s.charAt(i++));
                    } else {
                        value.append(c);
                    }
                }
            }
            put(out, key, value.toString());
        }
        return validated(out);
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

    static void put(Map<String, String> out, String key, String value) {
        if (!SUPPORTED_PARAMETERS.contains(key)) {
            throw new ConnInfoException("invalid connection option" + unknownName(key));
        }
        if (value == null) {
            throw new ConnInfoException("connection option \"" + key + "\" has no value");
        }
        if (value.indexOf('\0') >= 0) {
            throw new ConnInfoException("connection option \"" + key + "\" contains a NUL character");
        }
        out.remove(key); // a later value wins and takes the later position
        out.put(key, value);
    }

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
            throw new ConnInfoException("invalid integer value \"" + printable(timeout) + "\" for connection option \"connect_timeout\"");
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
                throw new ConnInfoException("invalid replication value: \"" + printable(repl)
                        + "\" (expected database, or a boolean)");
            }
        }
        String enc = p.get("client_encoding");
        if (enc != null && !enc.isEmpty() && !List.of("utf8", "utf-8", "unicode").contains(enc.toLowerCase(Locale.ROOT))) {
            throw new ConnInfoException("unsupported client_encoding \"" + printable(enc)
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
            throw new ConnInfoException("invalid " + key + " value: \"" + printable(v) + "\" (expected "
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
                throw new ConnInfoException("invalid " + key + " value: \"" + printable(v)
                        + "\" (expected 3.0, 3.2 or latest)");
        }
    }

    private static int integer(String key, String v) {
        String t = v.strip();
        if (t.isEmpty() || t.length() > 10 || !t.chars().allMatch(c -> c >= '0' && c <= '9' || c == '-')) {
            throw new ConnInfoException("invalid integer value \"" + printable(v) + "\" for connection option \"" + key + "\"");
        }
        try {
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new ConnInfoException("invalid integer value \"" + printable(v) + "\" for connection option \"" + key + "\"");
        }
    }

    /**
     * Names an unknown parameter with the supported one closest to it, as in
     * {@code "sslmdoe" (did you mean "sslmode"?)}. The unknown text is shown only when it looks
     * like a misspelt parameter name (a close match exists): otherwise it may be the tail of a
     * password split by an unquoted space or a reserved character, and nothing is shown.
     */
    static String unknownName(String unknown) {
        String hint = suggestion(unknown);
        if (hint.isEmpty() || !unknown.matches("[A-Za-z_][A-Za-z0-9_]{0,39}")) {
            return hint;
        }
        return " \"" + unknown + "\"" + hint;
    }

    private static String suggestion(String unknown) {
        String k = unknown.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = 3;
        for (String name : SUPPORTED_PARAMETERS) {
            int d = editDistance(k, name, bestDistance);
            if (d < bestDistance) {
                best = name;
                bestDistance = d;
            }
        }
        return best == null ? "" : " (did you mean \"" + best + "\"?)";
    }

    /** Levenshtein distance, giving up (returning {@code limit}) once it cannot be below {@code limit}. */
    private static int editDistance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return Math.min(prev[b.length()], limit);
    }

    /** Bounded and control-free, for error messages about non-secret text. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(64).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return s.length() > 64 ? b + "..." : b.toString();
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
