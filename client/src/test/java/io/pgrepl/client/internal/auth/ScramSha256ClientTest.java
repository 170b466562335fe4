package io.pgrepl.client.internal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ScramSha256ClientTest {
    private static final String RFC_NONCE = "rOprNGfwEbeRWgbNEkqO";
    private static final String RFC_SERVER_FIRST =
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static ScramSha256Client rfcClient() {
        return new ScramSha256Client(ascii("pencil"), ScramSha256Client.CbindFlag.NONE, null, "user", RFC_NONCE,
                ScramSha256Client.DEFAULT_MAX_ITERATIONS);
    }

    @Test
    void rfc7677TestVector() {
        ScramSha256Client client = rfcClient();
        assertEquals("n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
                new String(client.clientFirstMessage(), StandardCharsets.US_ASCII));
        String clientFinal = new String(client.handleServerFirst(ascii(RFC_SERVER_FIRST)), StandardCharsets.US_ASCII);
        assertEquals("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", clientFinal);
        assertFalse(client.isComplete());
        client.handleServerFinal(ascii("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="));
        assertTrue(client.isComplete());
        assertFalse(client.isChannelBound());
    }

    @Test
    void pbkdf2MatchesTheJdkForAsciiPasswords() throws Exception {
        byte[] salt = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
        byte[] jdk = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                .generateSecret(new PBEKeySpec("pencil".toCharArray(), salt, 4096, 256)).getEncoded();
        assertArrayEquals(jdk, ScramSha256Client.pbkdf2(ascii("pencil"), salt, 4096));
    }

    @Test
    void defaultClientFirstHasEmptyUserAndEighteenByteNonce() {
        ScramSha256Client client = new ScramSha256Client(ascii("pw"), ScramSha256Client.CbindFlag.NONE, null);
        String first = new String(client.clientFirstMessage(), StandardCharsets.US_ASCII);
        assertTrue(first.startsWith("n,,n=,r="), first);
        byte[] raw = Base64.getDecoder().decode(first.substring("n,,n=,r=".length()));
        assertEquals(18, raw.length);
    }

    @Test
    void wrongServerSignatureIsRejected() {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        client.handleServerFirst(ascii(RFC_SERVER_FIRST));
        AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> client.handleServerFinal(ascii("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")));
        assertEquals(Reason.SERVER_SIGNATURE_INVALID, e.reason());
        assertFalse(client.isComplete());
    }

    @ParameterizedTest
    @ValueSource(strings = {"v=", "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G5=", "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4", "v=AAAA",
            "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=,x=1", "x=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="})
    void malformedServerFinalIsRejected(String serverFinal) {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        client.handleServerFirst(ascii(RFC_SERVER_FIRST));
        AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> client.handleServerFinal(ascii(serverFinal)));
        assertEquals(Reason.MALFORMED_SERVER_MESSAGE, e.reason());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ=,i=4096",     // bad base64 (length)
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7so*sUEjb6gQ==,i=4096",    // bad base64 (alphabet)
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=,i=4096",                            // empty salt
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=-1",
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096x",
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=99999999999",
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=",
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==",            // missing i
        "r=rOprNGfwEbeRWgbNEkqO%hvY,i=4096",                               // missing s
        "r=rOprNGfwEbeRWgbNEkqO%hvY,i=4096,s=W22ZaJ0SNY7soEsUEjb6gQ==",    // wrong order
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,",   // trailing comma
        "r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,x=y", // extension
        "m=ext,r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", // mandatory extension
        "r=rOprNGfwEbeRWgbNEkqO%hvY s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        "",
    })
    void malformedServerFirstIsRejected(String serverFirst) {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> client.handleServerFirst(ascii(serverFirst)));
        assertEquals(Reason.MALFORMED_SERVER_MESSAGE, e.reason(), e.getMessage());
        assertFalse(e.getMessage().contains(RFC_NONCE));
    }

    @Test
    void nonControlBytesAndNulAreRejected() {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        byte[] withNul = ascii(RFC_SERVER_FIRST + "\0");
        assertEquals(Reason.MALFORMED_SERVER_MESSAGE,
                assertThrows(AuthenticationException.class, () -> client.handleServerFirst(withNul)).reason());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",         // equal to ours
        "r=rOprNGfwEbeRWgbNEkqP%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",     // last char differs
        "r=XOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",     // first char differs
        "r=rOprNGfw,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",                     // shorter
        "r=%hvYrOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",     // ours not as prefix
    })
    void tamperedNonceIsRejected(String serverFirst) {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> client.handleServerFirst(ascii(serverFirst)));
        assertEquals(Reason.NONCE_MISMATCH, e.reason());
        assertFalse(e.getMessage().contains(RFC_NONCE));
    }

    @Test
    void hostileIterationCountIsRefusedWithoutComputing() {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> client.handleServerFirst(
                ascii("r=rOprNGfwEbeRWgbNEkqO%hvY,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=2147483647")));
        assertEquals(Reason.ITERATION_COUNT_TOO_HIGH, e.reason());
    }

    @Test
    void serverErrorAttributeIsSurfaced() {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        client.handleServerFirst(ascii(RFC_SERVER_FIRST));
        AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> client.handleServerFinal(ascii("e=invalid-proof")));
        assertEquals(Reason.SERVER_ERROR, e.reason());
        assertTrue(e.getMessage().contains("invalid-proof"));
        assertFalse(e.getMessage().contains("pencil"));
    }

    @Test
    void stepsOutOfOrderAreProtocolViolations() {
        ScramSha256Client client = rfcClient();
        assertEquals(Reason.PROTOCOL_VIOLATION, assertThrows(AuthenticationException.class,
                () -> client.handleServerFinal(ascii("v=AAAA"))).reason());
        ScramSha256Client second = rfcClient();
        second.clientFirstMessage();
        second.handleServerFirst(ascii(RFC_SERVER_FIRST));
        assertEquals(Reason.PROTOCOL_VIOLATION, assertThrows(AuthenticationException.class,
                () -> second.handleServerFirst(ascii(RFC_SERVER_FIRST))).reason());
    }

    @Test
    void toStringShowsNoSecrets() {
        ScramSha256Client client = rfcClient();
        client.clientFirstMessage();
        assertFalse(client.toString().contains("pencil"));
        assertFalse(client.toString().contains(RFC_NONCE));
    }
}
