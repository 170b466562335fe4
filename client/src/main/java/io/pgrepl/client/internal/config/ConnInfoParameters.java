package io.pgrepl.client.internal.config;

import io.pgrepl.client.config.ClosestName;
import io.pgrepl.client.config.ConnInfoException;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The parameter names this client accepts, and the errors about them that both connection-string
 * forms ({@link ConnInfoKeywordValue}, {@link ConnInfoUri}) and {@link HostLists} share: unknown
 * names with a "did you mean" hint, printable excerpts that never show a secret. Its own class so
 * that the parsers depend on it rather than on {@link ConnInfo}, which depends on them.
 */
final class ConnInfoParameters {
    private ConnInfoParameters() {}

    /** Accepted parameter names (libpq spelling). */
    static final Set<String> NAMES = Collections.unmodifiableSet(new java.util.LinkedHashSet<>(List.of(
            "host", "hostaddr", "port", "dbname", "user", "password", "passfile",
            "application_name", "fallback_application_name", "options", "client_encoding", "replication",
            "connect_timeout", "sslmode", "sslnegotiation", "sslrootcert", "sslcert", "sslkey", "sslpassword",
            "sslsni", "channel_binding", "require_auth", "min_protocol_version", "max_protocol_version",
            "target_session_attrs", "load_balance_hosts")));

    /** The port libpq uses when none is given. */
    static final int DEFAULT_PORT = 5432;

    /**
     * Adds one parameter, refusing unknown names, missing values and NUL characters; a later value
     * replaces an earlier one and takes its position.
     */
    static void put(Map<String, String> out, String key, String value) {
        if (!NAMES.contains(key)) {
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
        String best = ClosestName.of(unknown.toLowerCase(Locale.ROOT), NAMES, ClosestName.DEFAULT_LIMIT);
        return best == null ? "" : " (did you mean \"" + best + "\"?)";
    }

    /** Bounded and control-free, for error messages about non-secret text. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(64).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return s.length() > 64 ? b + "..." : b.toString();
    }
}
