package io.pgrepl.client.auth;

/** The authentication request codes carried by the backend's {@code 'R'} message. */
public enum AuthRequestKind {
    /** AuthenticationOk: authentication succeeded. */
    OK(0),
    /** AuthenticationKerberosV5 (no longer sent by servers). */
    KERBEROS_V5(2),
    /** AuthenticationCleartextPassword. */
    CLEARTEXT_PASSWORD(3),
    /** AuthenticationMD5Password, with a 4-byte salt. */
    MD5_PASSWORD(5),
    /** AuthenticationGSS. */
    GSS(7),
    /** AuthenticationGSSContinue. */
    GSS_CONTINUE(8),
    /** AuthenticationSSPI. */
    SSPI(9),
    /** AuthenticationSASL, listing the mechanisms. */
    SASL(10),
    /** AuthenticationSASLContinue: server-first-message. */
    SASL_CONTINUE(11),
    /** AuthenticationSASLFinal: server-final-message. */
    SASL_FINAL(12),
    /** Any code this client does not know (including the long-gone crypt and Kerberos 4). */
    UNKNOWN(-1);

    private final int code;

    AuthRequestKind(int code) {
        this.code = code;
    }

    /**
     * The wire code, or -1 for {@link #UNKNOWN}.
     *
     * @return the code
     */
    public int code() {
        return code;
    }

    /**
     * The kind of an {@code 'R'} message's code.
     *
     * @param code the Int32 after the message length
     * @return the kind, or {@link #UNKNOWN}
     */
    public static AuthRequestKind fromCode(int code) {
        for (AuthRequestKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        return UNKNOWN;
    }

    /**
     * What the server asked for, in libpq's words (for errors about refused or unsupported methods).
     *
     * @return e.g. "server requested a hashed password"
     */
    public String description() {
        switch (this) {
            case CLEARTEXT_PASSWORD:
                return "server requested a cleartext password";
            case MD5_PASSWORD:
                return "server requested a hashed password";
            case GSS:
            case GSS_CONTINUE:
                return "server requested GSSAPI authentication";
            case SSPI:
                return "server requested SSPI authentication";
            case SASL:
            case SASL_CONTINUE:
            case SASL_FINAL:
                return "server requested SASL authentication";
            default:
                return "server requested an unknown authentication type";
        }
    }
}
