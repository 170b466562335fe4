package io.pgrepl.client.internal.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * FAKE SCRAM server, test-only. A real PostgreSQL server cannot be told to forge its signature,
 * tamper with the nonce or send malformed messages, so these cases use this stand-in. It keeps the
 * server's rules that matter to the client: the channel-binding flag must be the same in both
 * client messages, {@code y} while -PLUS was advertised is a downgrade, the {@code c=} data must be
 * the gs2 header plus (for {@code p}) the server's own certificate hash, and the proof must verify.
 *
 * <p>Keys are derived with the JDK's PBKDF2WithHmacSHA256 (ASCII test passwords), an
 * implementation independent from the client's byte-oriented PBKDF2.
 */
final class FakeScramServer {
    /** The fake server refused the client (what PostgreSQL would answer with an ErrorResponse). */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    final List<String> advertised;
    private final byte[] salt;
    private final int iterations;
    private final byte[] storedKey;
    private final byte[] serverKey;
    private final byte[] certificateHash;
    private final String serverNonce;

    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String fullNonce;
    String lastClientFirst;
    String lastClientFinal;

    FakeScramServer(String password, byte[] salt, int iterations, List<String> advertised, byte[] certificateHash) {
        this.advertised = advertised;
        this.salt = salt;
        this.iterations = iterations;
        this.certificateHash = certificateHash;
        this.serverNonce = "fakeServerNonce+/0123456789";
        try {
            byte[] salted = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                    .generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256))
                    .getEncoded();
            this.storedKey = MessageDigest.getInstance("SHA-256").digest(hmac(salted, "Client Key"));
            this.serverKey = hmac(salted, "Server Key");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static FakeScramServer plain(String password) {
        return new FakeScramServer(password, "0123456789abcdef".getBytes(StandardCharsets.US_ASCII), 4096,
                List.of(ScramSha256Client.MECHANISM), null);
    }

    /** Parses client-first; returns the honest server-first-message. */
    String serverFirst(SaslInitial initial) {
        String msg = new String(initial.initialResponse(), StandardCharsets.US_ASCII);
        lastClientFirst = msg;
        if (!advertised.contains(initial.mechanism())) {
            throw new Refused("mechanism not advertised: " + initial.mechanism());
        }
        int second = msg.indexOf(',', msg.indexOf(',') + 1);
        gs2Header = msg.substring(0, second + 1);
        boolean plus = initial.mechanism().equals(ScramSha256Client.MECHANISM_PLUS);
        if (gs2Header.startsWith("p=")) {
            if (!plus || !gs2Header.equals("p=tls-server-end-point,,")) {
                throw new Refused("unexpected channel binding type");
            }
        } else if (plus) {
            throw new Refused("channel binding not requested with -PLUS");
        } else if (gs2Header.equals("y,,")) {
            if (advertised.contains(ScramSha256Client.MECHANISM_PLUS)) {
                throw new Refused("SCRAM channel binding negotiation error (downgrade)");
            }
        } else if (!gs2Header.equals("n,,")) {
            throw new Refused("malformed gs2 header");
        }
        clientFirstBare = msg.substring(second + 1);
        if (!clientFirstBare.startsWith("n=,r=") && !clientFirstBare.startsWith("n=user,r=")) {
            throw new Refused("unexpected client-first-bare");
        }
        String clientNonce = clientFirstBare.substring(clientFirstBare.indexOf(",r=") + 3);
        fullNonce = clientNonce + serverNonce;
        serverFirst = "r=" + fullNonce + ",s=" + Base64.getEncoder().encodeToString(salt) + ",i=" + iterations;
        return serverFirst;
    }

    String clientNonce() {
        return clientFirstBare.substring(clientFirstBare.indexOf(",r=") + 3);
    }

    /** Use when the test hands the client a tampered server-first: the proof is then computed over it. */
    void overrideServerFirst(String tampered) {
        serverFirst = tampered;
        fullNonce = tampered.substring(2, tampered.indexOf(','));
    }

    /** Verifies client-final like PostgreSQL; returns the honest server-final-message. */
    String serverFinal(byte[] clientFinalBytes) {
        String clientFinal = new String(clientFinalBytes, StandardCharsets.US_ASCII);
        lastClientFinal = clientFinal;
        int proofAt = clientFinal.lastIndexOf(",p=");
        String withoutProof = clientFinal.substring(0, proofAt);
        String[] parts = withoutProof.split(",");
        byte[] expectedCbind = gs2Header.getBytes(StandardCharsets.US_ASCII);
        if (gs2Header.startsWith("p=")) {
            byte[] withHash = Arrays.copyOf(expectedCbind, expectedCbind.length + certificateHash.length);
            System.arraycopy(certificateHash, 0, withHash, expectedCbind.length, certificateHash.length);
            expectedCbind = withHash;
        }
        if (!parts[0].startsWith("c=")
                || !Arrays.equals(Base64.getDecoder().decode(parts[0].substring(2)), expectedCbind)) {
            throw new Refused("SCRAM channel binding check failed");
        }
        if (!parts[1].equals("r=" + fullNonce)) {
            throw new Refused("unexpected SCRAM nonce");
        }
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof)
                .getBytes(StandardCharsets.US_ASCII);
        byte[] proof = Base64.getDecoder().decode(clientFinal.substring(proofAt + 3));
        byte[] signature = hmac(storedKey, authMessage);
        byte[] clientKey = new byte[32];
        for (int i = 0; i < 32; i++) {
            clientKey[i] = (byte) (proof[i] ^ signature[i]);
        }
        try {
            if (!Arrays.equals(MessageDigest.getInstance("SHA-256").digest(clientKey), storedKey)) {
                throw new Refused("password authentication failed");
            }
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return "v=" + Base64.getEncoder().encodeToString(hmac(serverKey, authMessage));
    }

    /** A signature from a server that does not know the password. */
    static String forgedServerFinal() {
        byte[] junk = new byte[32];
        Arrays.fill(junk, (byte) 0x5A);
        return "v=" + Base64.getEncoder().encodeToString(junk);
    }

    private static byte[] hmac(byte[] key, String data) {
        return hmac(key, data.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
