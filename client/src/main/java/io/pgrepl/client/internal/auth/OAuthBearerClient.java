package io.pgrepl.client.internal.auth;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import io.pgrepl.client.auth.OAuthErrorResult;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The client side of SASL OAUTHBEARER (RFC 7628) as PostgreSQL 18 speaks it: one initial
 * response carrying {@code auth=Bearer <token>}; then either AuthenticationOk (nothing more to
 * verify: unlike SCRAM the server proves nothing back) or an error result in an
 * AuthenticationSASLContinue, answered with the single {@code 0x01} the RFC requires, after which
 * the server ends the attempt with a FATAL error. Never channel-bound (GS2 flag {@code n}).
 */
final class OAuthBearerClient {
    static final String MECHANISM = "OAUTHBEARER";
    /** The server reads the initial response into a buffer bounded by its SASL message limit. */
    static final int MAX_TOKEN_BYTES = 60_000;
    private static final byte KVSEP = 0x01;

    private enum Step { TOKEN_SENT, SERVER_ERROR }

    private Step step = Step.TOKEN_SENT;
    private OAuthErrorResult rejection;

    /**
     * {@code n,,} kvsep {@code auth=Bearer <token>} kvsep kvsep.
     *
     * @param token the bearer token; checked against RFC 6750's b64token grammar first, so that a
     *              stray newline or space from the token source cannot corrupt the message
     * @return the initial response; the caller zeroes it after sending
     */
    static byte[] initialResponse(String token) {
        if (token == null || token.isEmpty()) {
            throw new AuthenticationException(Reason.NO_TOKEN, "the OAuth bearer token source returned no token");
        }
        checkB64Token(token);
        byte[] head = ("n,," + (char) KVSEP + "auth=Bearer ").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + token.length() + 2];
        System.arraycopy(head, 0, out, 0, head.length);
        for (int i = 0; i < token.length(); i++) {
            out[head.length + i] = (byte) token.charAt(i);
        }
        out[out.length - 2] = KVSEP;
        out[out.length - 1] = KVSEP;
        Arrays.fill(head, (byte) 0);
        return out;
    }

    /** RFC 6750: {@code 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="}. Never echoes the token. */
    private static void checkB64Token(String token) {
        if (token.length() > MAX_TOKEN_BYTES) {
            throw new AuthenticationException(Reason.INVALID_TOKEN, "the OAuth bearer token is " + token.length()
                    + " characters long; at most " + MAX_TOKEN_BYTES + " are sent");
        }
        int i = 0;
        for (; i < token.length(); i++) {
            char c = token.charAt(i);
            boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~+/".indexOf(c) >= 0;
            if (!ok) break;
        }
        int tokenChars = i;
        while (i < token.length() && token.charAt(i) == '=') i++;
        if (tokenChars == 0 || i != token.length()) {
            throw new AuthenticationException(Reason.INVALID_TOKEN, "the OAuth bearer token from the token source is not"
                    + " an RFC 6750 b64token (the character at offset " + (tokenChars == 0 ? 0 : i) + " is not allowed;"
                    + " pass the bare token, without \"Bearer \" or surrounding whitespace)");
        }
    }

    /** The token source threw or failed its stage: its exception becomes the cause. */
    static AuthenticationException sourceFailed(Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        // The class name only: the source's own message is its business (it may echo a credential).
        AuthenticationException e = new AuthenticationException(Reason.TOKEN_SOURCE_FAILED,
                "the OAuth bearer token source failed (" + cause.getClass().getName() + "); see the cause");
        e.initCause(cause);
        return e;
    }

    /**
     * AuthenticationSASLContinue: the server rejected the token. Records its error result and
     * returns the dummy response.
     *
     * @param serverData the error result JSON
     * @return the single byte {@code 0x01}
     */
    byte[] onServerError(byte[] serverData) {
        if (step != Step.TOKEN_SENT) {
            throw new AuthenticationException(Reason.PROTOCOL_VIOLATION, "server sent additional OAuth data after error");
        }
        rejection = OAuthErrorJson.parse(serverData);
        step = Step.SERVER_ERROR;
        return new byte[] {KVSEP};
    }

    /** AuthenticationSASLFinal: OAUTHBEARER has no additional data on success. */
    void onFinal() {
        throw new AuthenticationException(Reason.PROTOCOL_VIOLATION, step == Step.TOKEN_SENT
                ? "server sent unexpected additional OAuth data" : "server sent additional OAuth data after error");
    }

    /** AuthenticationOk: acceptable only if the server did not reject the token first. */
    void onOk() {
        if (step == Step.SERVER_ERROR) {
            throw new AuthenticationException(Reason.PROTOCOL_VIOLATION,
                    "server accepted the connection after rejecting the OAuth bearer token");
        }
    }

    /**
     * The typed failure for the server's closing error, when it follows a rejection.
     *
     * @param user       the role, for the message
     * @param serverError the server's FATAL error, kept as the cause
     * @return the exception, or null when the server did not send an error result
     */
    AuthenticationException rejected(String user, Throwable serverError) {
        if (rejection == null) return null;
        StringBuilder m = new StringBuilder("server rejected the OAuth bearer token for user \"").append(user)
                .append("\" (status ").append(rejection.status()).append(')');
        if (rejection.scope() != null) m.append("; it requires scope \"").append(rejection.scope()).append('"');
        if (rejection.openidConfiguration() != null) {
            m.append("; issuer discovery document: ").append(rejection.openidConfiguration());
        }
        m.append(". Have the token source return a current token from that issuer with that scope,"
                + " for a role the server's validator maps to this user; this attempt is not retried");
        AuthenticationException e = new AuthenticationException(Reason.TOKEN_REJECTED, m.toString(), rejection);
        e.initCause(serverError);
        return e;
    }
}
