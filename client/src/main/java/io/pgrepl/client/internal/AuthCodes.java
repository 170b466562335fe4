package io.pgrepl.client.internal;

/** Names for the authentication methods this client refuses, for a clear error. */
public final class AuthCodes {
    private AuthCodes() {}

    public static String describe(int code) {
        String name = switch (code) {
            case 2 -> "Kerberos V5";
            case 7, 8 -> "GSSAPI";
            case 9 -> "SSPI";
            default -> "unknown method (code " + code + ")";
        };
        return "authentication method " + name + " requested by the server is not supported by this client";
    }
}
