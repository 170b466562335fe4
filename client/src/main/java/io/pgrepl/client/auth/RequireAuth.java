package io.pgrepl.client.auth;

import io.pgrepl.client.internal.auth.ScramSha256Client;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * libpq's {@code require_auth} option (libpq 16+, {@code oauth} from 18).
 *
 * <p>A plain list names the only methods the server may use and demands that one of them is
 * completed; {@code none} in that list also allows a server that asks for nothing (trust). A list
 * of {@code !}-negated entries forbids those methods; {@code !none} forbids asking for nothing.
 * Negated and plain entries cannot be mixed, and an entry cannot repeat.
 */
public final class RequireAuth {
    /** The methods {@code require_auth} can name (besides {@code none}). */
    public enum Method {
        /** Cleartext password. */
        PASSWORD("password"),
        /** MD5-hashed password. */
        MD5("md5"),
        /** GSSAPI (Kerberos). */
        GSS("gss"),
        /** Windows SSPI. */
        SSPI("sspi"),
        /** SCRAM-SHA-256, with or without channel binding. */
        SCRAM_SHA_256("scram-sha-256"),
        /** OAuth bearer tokens (PostgreSQL 18). */
        OAUTH("oauth");

        private final String keyword;

        Method(String keyword) {
            this.keyword = keyword;
        }

        /** {@return the require_auth spelling, e.g. {@code scram-sha-256}} */
        public String keyword() {
            return keyword;
        }
    }

    private static final RequireAuth ANY = new RequireAuth(null, EnumSet.allOf(Method.class), false);

    private final String text;
    private final Set<Method> allowed;
    private final boolean authRequired;

    private RequireAuth(String text, Set<Method> allowed, boolean authRequired) {
        this.text = text;
        this.allowed = Collections.unmodifiableSet(allowed);
        this.authRequired = authRequired;
    }

    /**
     * No restriction: what libpq does when {@code require_auth} is unset.
     *
     * @return the unrestricted policy
     */
    public static RequireAuth any() {
        return ANY;
    }

    /**
     * Parses a {@code require_auth} value; {@code null} or empty means no restriction.
     *
     * @param value the comma-separated list
     * @return the policy
     * @throws IllegalArgumentException with libpq's wording for a bad value
     */
    public static RequireAuth parse(String value) {
        if (value == null || value.isEmpty()) {
            return ANY;
        }
        String[] parts = value.split(",", -1);
        boolean negated = parts[0].startsWith("!");
        EnumSet<Method> allowed = negated ? EnumSet.allOf(Method.class) : EnumSet.noneOf(Method.class);
        boolean authRequired = !negated;
        boolean noneSeen = false;
        for (String part : parts) {
            boolean neg = part.startsWith("!");
            String name = neg ? part.substring(1) : part;
            if (neg != negated) {
                throw new IllegalArgumentException(neg
                        ? "negative require_auth method \"" + name + "\" cannot be mixed with non-negative methods"
                        : "require_auth method \"" + name + "\" cannot be mixed with negative methods");
            }
            if (name.equals("none")) {
                if (noneSeen) {
                    throw duplicate(part);
                }
                noneSeen = true;
                // none: the server may sign in without asking; !none: it must ask for something.
                authRequired = negated;
                continue;
            }
            Method method = null;
            for (Method m : Method.values()) {
                if (m.keyword.equals(name)) {
                    method = m;
                }
            }
            if (method == null) {
                throw new IllegalArgumentException("invalid require_auth value: \"" + name + "\"");
            }
            boolean changed = negated ? allowed.remove(method) : allowed.add(method);
            if (!changed) {
                throw duplicate(part);
            }
        }
        return new RequireAuth(value, allowed, authRequired);
    }

    private static IllegalArgumentException duplicate(String part) {
        return new IllegalArgumentException("require_auth method \"" + part + "\" is specified more than once");
    }

    /**
     * True when the value was unset: every method and no challenge at all are acceptable.
     *
     * @return whether the value was unset
     */
    public boolean isUnrestricted() {
        return text == null;
    }

    /**
     * The methods the server may use.
     *
     * @return the methods, unmodifiable
     */
    public Set<Method> allowedMethods() {
        return allowed;
    }

    /**
     * Whether AuthenticationOk must follow a completed exchange (false when {@code none} is allowed).
     *
     * @return whether an exchange must complete
     */
    public boolean authenticationRequired() {
        return authRequired;
    }

    /**
     * Called when the server asks for a method, before anything is sent.
     *
     * @param kind the server's request
     * @throws AuthenticationException {@link AuthenticationException.Reason#POLICY_REFUSED}
     */
    public void check(AuthRequestKind kind) {
        if (isUnrestricted()) {
            return;
        }
        boolean ok;
        switch (kind) {
            case OK:
                return; // judged by checkCompleted
            case CLEARTEXT_PASSWORD:
                ok = allowed.contains(Method.PASSWORD);
                break;
            case MD5_PASSWORD:
                ok = allowed.contains(Method.MD5);
                break;
            case GSS:
                ok = allowed.contains(Method.GSS);
                break;
            case SSPI:
                ok = allowed.contains(Method.SSPI);
                break;
            case GSS_CONTINUE:
                ok = allowed.contains(Method.GSS) || allowed.contains(Method.SSPI);
                break;
            case SASL:
            case SASL_CONTINUE:
            case SASL_FINAL:
                ok = allowed.contains(Method.SCRAM_SHA_256) || allowed.contains(Method.OAUTH);
                break;
            default:
                ok = false;
        }
        if (!ok) {
            throw refused(kind.description());
        }
    }

    /**
     * Whether a SASL mechanism advertised by the server may be chosen.
     *
     * @param mechanism e.g. {@code SCRAM-SHA-256-PLUS}
     * @return whether it may be chosen
     */
    public boolean allowsMechanism(String mechanism) {
        switch (mechanism) {
            case ScramSha256Client.MECHANISM:
            case ScramSha256Client.MECHANISM_PLUS:
                return allowed.contains(Method.SCRAM_SHA_256);
            case "OAUTHBEARER":
                return allowed.contains(Method.OAUTH);
            default:
                return false;
        }
    }

    /**
     * Called when none of the server's SASL mechanisms can be used: refuses one this policy
     * forbids, in libpq's words (e.g. {@code require_auth=oauth} against a SCRAM server).
     *
     * @param mechanism a mechanism the server offered
     * @throws AuthenticationException {@link AuthenticationException.Reason#POLICY_REFUSED} when it is forbidden
     */
    public void refuseMechanism(String mechanism) {
        if (!isUnrestricted() && !allowsMechanism(mechanism)) {
            throw refused("server requested " + mechanism + " authentication");
        }
    }

    /**
     * Called when AuthenticationOk arrives.
     *
     * @param clientFinishedAuth whether the client completed an exchange (sent a password, or
     *                           verified the SCRAM server signature)
     * @throws AuthenticationException {@link AuthenticationException.Reason#POLICY_REFUSED}
     */
    public void checkCompleted(boolean clientFinishedAuth) {
        if (!isUnrestricted() && authRequired && !clientFinishedAuth) {
            throw refused("server did not complete authentication");
        }
    }

    private AuthenticationException refused(String why) {
        return new AuthenticationException(AuthenticationException.Reason.POLICY_REFUSED,
                "authentication method requirement \"" + text + "\" failed: " + why);
    }

    @Override
    public String toString() {
        return text == null ? "RequireAuth[any]" : "RequireAuth[" + text + "]";
    }
}
