package io.pgrepl.client.internal;

import java.util.List;

/**
 * The startup exchange's view of authentication: one instance per connection attempt. Every
 * method may throw (policy refusal, bad server data); it then fails the connection before
 * anything more is sent. Returned byte arrays are sent as-is and then zeroed by the caller.
 */
public interface AuthSession {
    /** The mechanism chosen from the server's list and its client-first message. */
    record SaslStart(String mechanism, byte[] initialResponse) {}

    /** AuthenticationCleartextPassword: the password bytes (no NUL). */
    byte[] onCleartext();

    /** AuthenticationMD5Password: the full {@code md5...} answer as bytes (no NUL). */
    byte[] onMd5(byte[] salt);

    SaslStart onSasl(List<String> mechanisms);

    byte[] onSaslContinue(byte[] serverData);

    /** Verifies the server signature; must throw when it does not prove the password. */
    void onSaslFinal(byte[] serverData);

    /** AuthenticationOk: refuses when policy demanded an exchange that did not complete. */
    void onOk();

    /** True once SCRAM-SHA-256-PLUS completed with a verified server signature. */
    boolean channelBound();

    /** An authentication method this client does not implement (GSS, SSPI, Kerberos...). */
    RuntimeException unsupported(int code);
}
