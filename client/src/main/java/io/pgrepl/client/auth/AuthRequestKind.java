package io.pgrepl.client.auth;

/** The authentication request codes carried by the backend's {@code 'R'} message. */
public enum AuthRequestKind {
    OK(0),
    KERBEROS_V5(2),
    CLEARTEXT_PASSWORD(3),
    MD5_PASSWORD(5),
    GSS(7),
    GSS_CONTINUE(8),
    SSPI(9),
    SASL(10),
    SASL_CONTINUE(11),
    SASL_FINAL(12),
    /** Any code this client does not know (including the long-gone crypt and Kerberos 4). */
    UNKNOWN(-1);

    private final int code;

    AuthRequestKind(int code) {
        this.code = code;
    }

    /** The wire code, or -1 for {@link #UNKNOWN}. */
    public int code() {
        return code;
    }

    public static AuthRequestKind fromCode(int code) {
        for (AuthRequestKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        return UNKNOWN;
    }
}
