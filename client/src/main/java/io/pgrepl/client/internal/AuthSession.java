package io.pgrepl.client.internal;

import io.pgrepl.client.PgException;
import java.util.List;
import java.util.concurrent.CompletionStage;

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

    /**
     * AuthenticationSASL: may complete later (an OAuth token being fetched), on any thread; a
     * failed stage fails the connection.
     */
    CompletionStage<SaslStart> onSasl(List<String> mechanisms);

    byte[] onSaslContinue(byte[] serverData);

    /** Verifies the server signature; must throw when it does not prove the password. */
    void onSaslFinal(byte[] serverData);

    /** AuthenticationOk: refuses when policy demanded an exchange that did not complete. */
    void onOk();

    /** True once SCRAM-SHA-256-PLUS completed with a verified server signature. */
    boolean channelBound();

    /**
     * The server's ErrorResponse during startup, as the attempt should fail with it: an OAuth
     * token rejection becomes a typed authentication failure, anything else stays as it is.
     */
    default Throwable onServerError(PgException error) {
        return error;
    }

    /** An authentication method this client does not implement (GSS, SSPI, Kerberos...). */
    RuntimeException unsupported(int code);
}
