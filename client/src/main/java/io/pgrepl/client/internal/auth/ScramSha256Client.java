package io.pgrepl.client.internal.auth;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Client side of SCRAM-SHA-256 / SCRAM-SHA-256-PLUS (RFC 5802, RFC 7677) with PostgreSQL's
 * profile: empty user name in client-first (the server uses the startup user), no authzid,
 * channel binding type {@code tls-server-end-point} only.
 *
 * <p>States: {@link #clientFirstMessage()} → {@link #handleServerFirst} (returns client-final)
 * → {@link #handleServerFinal}. Any failure leaves the client failed for good. {@link #isComplete()}
 * turns true only after the server signature has been verified.
 */
public final class ScramSha256Client {
    /** The SASL mechanism without channel binding. */
    public static final String MECHANISM = "SCRAM-SHA-256";
    /** The SASL mechanism with tls-server-end-point channel binding. */
    public static final String MECHANISM_PLUS = "SCRAM-SHA-256-PLUS";

    /** The gs2 channel-binding flag, as PostgreSQL uses it. */
    public enum CbindFlag {
        /** No TLS, or binding disabled. */
        NONE("n,,"),
        /** Client supports binding, but the server did not offer -PLUS. */
        CLIENT_ONLY("y,,"),
        /** SCRAM-SHA-256-PLUS with tls-server-end-point. */
        TLS_SERVER_END_POINT("p=tls-server-end-point,,");

        final String gs2Header;

        CbindFlag(String gs2Header) {
            this.gs2Header = gs2Header;
        }
    }

    /** Default upper bound for {@code i=}: a hostile server must not make us spin for minutes. */
    public static final int DEFAULT_MAX_ITERATIONS = 10_000_000;

    private static final int KEY_LEN = 32;
    private static final int RAW_NONCE_LEN = 18;
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum State { INITIAL, FIRST_SENT, FINAL_SENT, COMPLETE, FAILED }

    private final CbindFlag flag;
    private final byte[] certificateHash;
    private final String userName;
    private final String clientNonce;
    private final int maxIterations;
    private byte[] password;

    private State state = State.INITIAL;
    private String clientFirstBare;
    private byte[] expectedServerSignature;

    /**
     * @param password        the password bytes (UTF-8 as typed); copied, SASLprep'd here
     * @param flag            the channel-binding flag; {@code TLS_SERVER_END_POINT} requires a hash
     * @param certificateHash {@link TlsServerEndPoint#certificateHash} of the server leaf certificate
     *                        for {@code TLS_SERVER_END_POINT}, otherwise null
     */
    public ScramSha256Client(byte[] password, CbindFlag flag, byte[] certificateHash) {
        this(password, flag, certificateHash, "", newNonce(), DEFAULT_MAX_ITERATIONS);
    }

    /** Test seam: the RFC 7677 vector needs {@code n=user} and a fixed nonce. */
    ScramSha256Client(byte[] password, CbindFlag flag, byte[] certificateHash, String userName,
                      String clientNonce, int maxIterations) {
        this.flag = Objects.requireNonNull(flag, "flag");
        if ((flag == CbindFlag.TLS_SERVER_END_POINT) != (certificateHash != null)) {
            throw new IllegalArgumentException("a certificate hash is needed exactly for tls-server-end-point");
        }
        this.certificateHash = certificateHash == null ? null : certificateHash.clone();
        this.userName = userName;
        this.clientNonce = clientNonce;
        this.maxIterations = maxIterations;
        if (password.length == 0) {
            throw new IllegalArgumentException("SCRAM needs a non-empty password");
        }
        this.password = SaslPrep.prepare(password);
    }

    private static String newNonce() {
        byte[] raw = new byte[RAW_NONCE_LEN];
        RANDOM.nextBytes(raw);
        return Base64.getEncoder().encodeToString(raw);
    }

    /**
     * The {@code i=} of a server-first-message, or -1 when it cannot be read (then
     * {@link #handleServerFirst} reports the problem). Lets the caller decide where to run PBKDF2.
     *
     * @param serverFirst the server-first-message
     * @return the iteration count, or -1
     */
    public static int iterationsOf(byte[] serverFirst) {
        String s = new String(serverFirst, StandardCharsets.US_ASCII);
        int i = s.lastIndexOf(",i=");
        if (i < 0) return -1;
        String v = s.substring(i + 3);
        if (v.isEmpty() || v.length() > 10 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) return -1;
        long n = Long.parseLong(v);
        return n > Integer.MAX_VALUE ? -1 : (int) n;
    }

    /**
     * The SASL mechanism name matching the flag.
     *
     * @return {@link #MECHANISM} or {@link #MECHANISM_PLUS}
     */
    public String mechanism() {
        return flag == CbindFlag.TLS_SERVER_END_POINT ? MECHANISM_PLUS : MECHANISM;
    }

    /**
     * client-first-message: the SASLInitialResponse payload.
     *
     * @return the message bytes
     */
    public byte[] clientFirstMessage() {
        expect(State.INITIAL);
        clientFirstBare = "n=" + userName + ",r=" + clientNonce;
        state = State.FIRST_SENT;
        return (flag.gs2Header + clientFirstBare).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Parses server-first-message and returns client-final-message (the SASLResponse payload).
     *
     * @param message the server-first-message
     * @return the client-final-message
     * @throws AuthenticationException on a malformed message or nonce mismatch
     */
    public byte[] handleServerFirst(byte[] message) {
        expect(State.FIRST_SENT);
        try {
            String serverFirst = asciiMessage(message, "server-first-message");
            String[] attrs = serverFirst.split(",", -1);
            if (attrs.length != 3) {
                throw malformed("server-first-message must be exactly r=,s=,i= (no extensions)");
            }
            String nonce = attribute(attrs[0], 'r');
            if (!nonce.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
                throw malformed("nonce contains a non-printable character");
            }
            byte[] ours = clientNonce.getBytes(StandardCharsets.US_ASCII);
            byte[] theirs = nonce.getBytes(StandardCharsets.US_ASCII);
            if (theirs.length <= ours.length
                    || !MessageDigest.isEqual(Arrays.copyOf(theirs, ours.length), ours)) {
                throw fail(Reason.NONCE_MISMATCH, "invalid SCRAM response (nonce mismatch)");
            }
            byte[] salt = base64(attribute(attrs[1], 's'), "salt");
            if (salt.length == 0) {
                throw malformed("empty salt");
            }
            int iterations = iterations(attribute(attrs[2], 'i'));

            String cbindInput = Base64.getEncoder().encodeToString(cbindInput());
            String withoutProof = "c=" + cbindInput + ",r=" + nonce;
            byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof)
                    .getBytes(StandardCharsets.US_ASCII);

            byte[] salted = pbkdf2(password, salt, iterations);
            byte[] clientKey = hmac(salted, "Client Key");
            byte[] storedKey = sha256(clientKey);
            byte[] clientSignature = hmac(storedKey, authMessage);
            byte[] proof = new byte[KEY_LEN];
            for (int i = 0; i < KEY_LEN; i++) {
                proof[i] = (byte) (clientKey[i] ^ clientSignature[i]);
            }
            byte[] serverKey = hmac(salted, "Server Key");
            expectedServerSignature = hmac(serverKey, authMessage);
            byte[] result = (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof))
                    .getBytes(StandardCharsets.US_ASCII);
            wipe(salted, clientKey, storedKey, clientSignature, proof, serverKey, password);
            state = State.FINAL_SENT;
            return result;
        } catch (AuthenticationException e) {
            state = State.FAILED;
            wipe(password);
            throw e;
        }
    }

    /**
     * Verifies server-final-message.
     *
     * @param message the server-final-message
     * @throws AuthenticationException {@code SERVER_ERROR} for {@code e=}, {@code SERVER_SIGNATURE_INVALID}
     *                                 for a wrong signature, {@code MALFORMED_SERVER_MESSAGE} otherwise
     */
    public void handleServerFinal(byte[] message) {
        expect(State.FINAL_SENT);
        try {
            String serverFinal = asciiMessage(message, "server-final-message");
            if (serverFinal.startsWith("e=")) {
                throw fail(Reason.SERVER_ERROR, "error received from server in SCRAM exchange: "
                        + printable(serverFinal.substring(2)));
            }
            String[] attrs = serverFinal.split(",", -1);
            if (attrs.length != 1) {
                throw malformed("garbage at end of server-final-message");
            }
            byte[] signature = base64(attribute(attrs[0], 'v'), "server signature");
            if (signature.length != KEY_LEN) {
                throw malformed("invalid server signature length " + signature.length);
            }
            if (!MessageDigest.isEqual(signature, expectedServerSignature)) {
                throw fail(Reason.SERVER_SIGNATURE_INVALID, "incorrect server signature");
            }
            state = State.COMPLETE;
        } catch (AuthenticationException e) {
            state = State.FAILED;
            throw e;
        } finally {
            wipe(expectedServerSignature);
        }
    }

    /**
     * True only once the server has proven it knows the password.
     *
     * @return whether the server signature was verified
     */
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    /**
     * True when the completed exchange was bound to the TLS channel (SCRAM-SHA-256-PLUS).
     *
     * @return whether channel binding was used
     */
    public boolean isChannelBound() {
        return isComplete() && flag == CbindFlag.TLS_SERVER_END_POINT;
    }

    /** Forgets the prepared password (e.g. when the connection is abandoned mid-exchange). */
    public void destroy() {
        wipe(password, expectedServerSignature);
        if (state != State.COMPLETE) {
            state = State.FAILED;
        }
    }

    @Override
    public String toString() {
        return "ScramSha256Client[" + mechanism() + ", " + state + "]";
    }

    private byte[] cbindInput() {
        byte[] header = flag.gs2Header.getBytes(StandardCharsets.US_ASCII);
        if (certificateHash == null) {
            return header;
        }
        byte[] input = Arrays.copyOf(header, header.length + certificateHash.length);
        System.arraycopy(certificateHash, 0, input, header.length, certificateHash.length);
        return input;
    }

    private void expect(State expected) {
        if (state != expected) {
            throw fail(Reason.PROTOCOL_VIOLATION, "unexpected SCRAM step in state " + state);
        }
    }

    /** Whole message must be printable ASCII without NUL; libpq also refuses embedded NULs. */
    private static String asciiMessage(byte[] message, String what) {
        if (message.length == 0) {
            throw malformed("empty " + what);
        }
        for (byte b : message) {
            if (b < 0x20 || b > 0x7E) {
                throw malformed(what + " contains a non-printable byte");
            }
        }
        return new String(message, StandardCharsets.US_ASCII);
    }

    private static String attribute(String attr, char name) {
        if (attr.length() < 2 || attr.charAt(0) != name || attr.charAt(1) != '=') {
            throw malformed("attribute \"" + name + "\" expected");
        }
        String value = attr.substring(2);
        if (value.isEmpty()) {
            throw malformed("attribute \"" + name + "\" is empty");
        }
        return value;
    }

    private static byte[] base64(String value, String what) {
        if (value.length() % 4 != 0) {
            throw malformed("invalid base64 in " + what);
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw malformed("invalid base64 in " + what);
        }
        // The JDK ignores non-zero padding bits; insist on the one canonical spelling.
        if (!Base64.getEncoder().encodeToString(decoded).equals(value)) {
            throw malformed("non-canonical base64 in " + what);
        }
        return decoded;
    }

    private int iterations(String value) {
        if (value.length() > 10 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw malformed("invalid iteration count");
        }
        long i = Long.parseLong(value);
        if (i < 1 || i > Integer.MAX_VALUE) {
            throw malformed("invalid iteration count");
        }
        if (i > maxIterations) {
            throw fail(Reason.ITERATION_COUNT_TOO_HIGH,
                    "server asked for " + i + " SCRAM iterations, more than the limit of " + maxIterations);
        }
        return (int) i;
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 200; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return b.toString();
    }

    /** PBKDF2-HMAC-SHA-256 over raw bytes, one block (dkLen 32): SASLprep may yield non-UTF-8 bytes. */
    static byte[] pbkdf2(byte[] password, byte[] salt, int iterations) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(password, "HmacSHA256"));
            mac.update(salt);
            mac.update(new byte[] {0, 0, 0, 1});
            byte[] u = mac.doFinal();
            byte[] result = u.clone();
            for (int n = 1; n < iterations; n++) {
                mac.update(u);
                mac.doFinal(u, 0);
                for (int k = 0; k < KEY_LEN; k++) {
                    result[k] ^= u[k];
                }
            }
            wipe(u);
            return result;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    static byte[] hmac(byte[] key, String data) {
        return hmac(key, data.getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    static void wipe(byte[]... arrays) {
        for (byte[] a : arrays) {
            if (a != null) {
                Arrays.fill(a, (byte) 0);
            }
        }
    }

    private static AuthenticationException malformed(String detail) {
        return fail(Reason.MALFORMED_SERVER_MESSAGE, "malformed SCRAM message (" + detail + ")");
    }

    private static AuthenticationException fail(Reason reason, String message) {
        return new AuthenticationException(reason, message);
    }
}
