package io.pgrepl.client.config;

import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.auth.RequireAuth;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
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
 * naming the parameter. A single host is supported. A later occurrence of a parameter overrides
 * an earlier one, as in libpq. Error messages and {@link #toString()} never show the password.
 */
public final class ConnInfo {
    /** Accepted parameter names (libpq spelling). */
    public static final Set<String> SUPPORTED_PARAMETERS = Collections.unmodifiableSet(new java.util.LinkedHashSet<>(List.of(
            "host", "hostaddr", "port", "dbname", "user", "password", "passfile",
            "application_name", "fallback_application_name", "options", "client_encoding", "replication",
            "connect_timeout", "sslmode", "sslnegotiation", "sslrootcert", "sslcert", "sslkey", "sslpassword",
            "sslsni", "channel_binding", "require_auth", "min_protocol_version", "max_protocol_version")));

    public static final int DEFAULT_PORT = 5432;

    private final Map<String, String> params;

    private ConnInfo(Map<String, String> params) {
        this.params = Collections.unmodifiableMap(params);
    }

    /** Parses a URI (if it starts with {@code postgresql://} or {@code postgres://}) or a keyword/value string. */
    public static ConnInfo parse(String connectionString) {
        String s = connectionString.strip();
        if (s.startsWith("postgresql://") || s.startsWith("postgres://")) {
            return parseUri(s);
        }
        return parseKeywordValue(s);
    }

    /** Builds from a map of libpq names to values, with the same validation. */
    public static ConnInfo of(Map<String, String> parameters) {
        LinkedHashMap<String, String> copy = new LinkedHashMap<>();
        parameters.forEach((k, v) -> put(copy, k, v));
        return validated(copy);
    }

    /** A copy with one parameter set (validated). */
    public ConnInfo with(String name, String value) {
        LinkedHashMap<String, String> copy = new LinkedHashMap<>(params);
        put(copy, name, value);
        return validated(copy);
    }

    // ---- keyword/value --------------------------------------------------------------------

    /** Parses {@code key=value key2='quoted \' value'}; backslash escapes the next character. */
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
                throw new ConnInfoException("invalid connection option at position " + start + suggestion(key));
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

    // ---- URI ------------------------------------------------------------------------------

    /** Parses {@code postgresql://[user[:password]@][host][:port][/dbname][?param=value&...]}. */
    public static ConnInfo parseUri(String uri) {
        String rest;
        if (uri.startsWith("postgresql://")) {
            rest = uri.substring("postgresql://".length());
        } else if (uri.startsWith("postgres://")) {
            rest = uri.substring("postgres://".length());
        } else {
            throw new ConnInfoException("connection URI must start with postgresql:// or postgres://");
        }
        LinkedHashMap<String, String> out = new LinkedHashMap<>();
        // As libpq: credentials end at the first '@' before any '/'. A '/' inside the password
        // would cut the credentials short and spill the password's tail into the port or dbname:
        // refuse that shape rather than echo it (an '@' in the path is where such a tail shows).
        int slash = rest.indexOf('/');
        int at = rest.indexOf('@');
        int query = rest.indexOf('?');
        if (slash >= 0 && (at < 0 || at > slash)) {
            String path = rest.substring(slash, query < 0 || query < slash ? rest.length() : query);
            if (path.indexOf('@') >= 0) {
                throw new ConnInfoException("unexpected \"@\" after the host in connection URI:"
                        + " percent-encode reserved characters in the user name, password and dbname ('/' as %2F, '@' as %40)");
            }
        }
        if (at >= 0 && (slash < 0 || at < slash)) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            if (!user.isEmpty()) {
                put(out, "user", decode(user, "user"));
            }
            if (colon >= 0) {
                put(out, "password", decode(userInfo.substring(colon + 1), "password"));
            }
        }
        int i = 0;
        int n = rest.length();
        String host;
        if (i < n && rest.charAt(i) == '[') {
            int close = rest.indexOf(']');
            if (close < 0) {
                throw new ConnInfoException("missing \"]\" in IPv6 host address in URI");
            }
            host = rest.substring(1, close);
            if (host.isEmpty()) {
                throw new ConnInfoException("IPv6 host address may not be empty in URI");
            }
            i = close + 1;
            if (i < n && "/?:,".indexOf(rest.charAt(i)) < 0) {
                throw new ConnInfoException("unexpected character after IPv6 host address in URI");
            }
        } else {
            while (i < n && "/?:,".indexOf(rest.charAt(i)) < 0) {
                i++;
            }
            host = decode(rest.substring(0, i), "host");
        }
        if (!host.isEmpty()) {
            put(out, "host", host);
        }
        if (i < n && rest.charAt(i) == ':') {
            int start = ++i;
            while (i < n && "/?,".indexOf(rest.charAt(i)) < 0) {
                i++;
            }
            String port = decode(rest.substring(start, i), "port");
            // Checked here, without the text: a malformed URI can put part of a password here.
            if (!port.isEmpty() && (port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9'))) {
                throw new ConnInfoException("invalid port number in connection URI"
                        + " (percent-encode reserved characters such as '/' in the password)");
            }
            if (!port.isEmpty()) {
                put(out, "port", port);
            }
        }
        if (i < n && rest.charAt(i) == ',') {
            throw new ConnInfoException("multiple hosts are not supported; give a single host");
        }
        if (i < n && rest.charAt(i) == '/') {
            int start = ++i;
            while (i < n && rest.charAt(i) != '?') {
                i++;
            }
            String db = decode(rest.substring(start, i), "dbname");
            if (!db.isEmpty()) {
                put(out, "dbname", db);
            }
        }
        if (i < n && rest.charAt(i) == '?') {
            for (String pair : rest.substring(i + 1).split("&", -1)) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                if (eq < 0) {
                    throw new ConnInfoException("missing key/value separator \"=\" in URI query parameter");
                }
                String key = decode(pair.substring(0, eq), "query parameter name");
                String value = decode(pair.substring(eq + 1), "value of " + key);
                if (key.equals("ssl") && value.equals("true")) {
                    // libpq's compatibility with JDBC URIs
                    key = "sslmode";
                    value = "require";
                }
                if (!SUPPORTED_PARAMETERS.contains(key)) {
                    throw new ConnInfoException("invalid URI query parameter" + suggestion(key));
                }
                put(out, key, value);
            }
        } else if (i < n) {
            throw new ConnInfoException("unexpected character in connection URI after the host");
        }
        return validated(out);
    }

    /** Percent-decoding to UTF-8; the error never repeats the text (it may be a password). */
    private static String decode(String s, String what) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] raw = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] != '%') {
                bytes.write(raw[i]);
                continue;
            }
            if (i + 2 >= raw.length || Character.digit(raw[i + 1], 16) < 0 || Character.digit(raw[i + 2], 16) < 0) {
                throw new ConnInfoException("invalid percent-encoded token in URI " + what);
            }
            int b = Character.digit(raw[i + 1], 16) * 16 + Character.digit(raw[i + 2], 16);
            if (b == 0) {
                throw new ConnInfoException("forbidden value %00 in percent-encoded URI " + what);
            }
            bytes.write(b);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new ConnInfoException("percent-encoded URI " + what + " is not valid UTF-8");
        }
    }

    // ---- validation -----------------------------------------------------------------------

    private static void put(Map<String, String> out, String key, String value) {
        if (!SUPPORTED_PARAMETERS.contains(key)) {
            throw new ConnInfoException("invalid connection option" + suggestion(key));
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
        String host = p.get("host");
        if (host != null && host.indexOf(',') >= 0) {
            throw new ConnInfoException("multiple hosts are not supported; give a single host");
        }
        String hostaddr = p.get("hostaddr");
        if (hostaddr != null && !hostaddr.isEmpty() && !hostaddr.matches("[0-9A-Fa-f.:]+")) {
            throw new ConnInfoException("invalid hostaddr value: \"" + printable(hostaddr)
                    + "\" (must be a numeric IPv4 or IPv6 address)");
        }
        String port = p.get("port");
        if (port != null && !port.isEmpty()) {
            if (port.indexOf(',') >= 0) {
                throw new ConnInfoException("multiple ports are not supported; give a single port");
            }
            int v = integer("port", port);
            if (v < 1 || v > 65535) {
                throw new ConnInfoException("invalid port number: \"" + printable(port) + "\"");
            }
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
     * A hint naming the supported parameter closest to an unknown one, never the unknown text
     * itself (it may be part of a password that was split by a space or reserved character).
     */
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
    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(64).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return s.length() > 64 ? b + "..." : b.toString();
    }

    // ---- accessors ------------------------------------------------------------------------

    /** All parameters, in order, unmodifiable. Contains the password if one was given. */
    public Map<String, String> asMap() {
        return params;
    }

    /** A parameter's value; empty when absent or set to the empty string (libpq treats both as unset). */
    public Optional<String> get(String name) {
        String v = params.get(name);
        return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    public Optional<String> host() {
        return get("host");
    }

    public Optional<String> hostaddr() {
        return get("hostaddr");
    }

    public int port() {
        return get("port").map(v -> Integer.parseInt(v.strip())).orElse(DEFAULT_PORT);
    }

    public Optional<String> dbname() {
        return get("dbname");
    }

    public Optional<String> user() {
        return get("user");
    }

    public Optional<String> password() {
        return get("password");
    }

    public SslMode sslMode() {
        return get("sslmode").map(SslMode::parse).orElse(SslMode.PREFER);
    }

    public ChannelBindingMode channelBinding() {
        return get("channel_binding").map(ChannelBindingMode::parse).orElse(ChannelBindingMode.PREFER);
    }

    public RequireAuth requireAuth() {
        return RequireAuth.parse(params.get("require_auth"));
    }

    /** libpq semantics: absent or 0 means wait indefinitely; 1 is raised to 2 seconds. */
    public Optional<Duration> connectTimeout() {
        return get("connect_timeout").map(v -> Integer.parseInt(v.strip())).filter(v -> v > 0)
                .map(v -> Duration.ofSeconds(Math.max(v, 2)));
    }

    /** Minor protocol version from {@code min_protocol_version}: 0 for 3.0, 2 for 3.2/latest; empty when unset. */
    public Optional<Integer> minProtocolMinor() {
        int v = protocol(params, "min_protocol_version", -1);
        return v < 0 ? Optional.empty() : Optional.of(v);
    }

    /** Minor protocol version from {@code max_protocol_version} (libpq 18 defaults to 3.0 when unset). */
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
