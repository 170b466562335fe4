package io.pgrepl.client.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;

class Md5PasswordTest {
    @Test
    void knownValue() {
        // Computed outside the project: md5(md5("secretpostgres").hexdigest() + b"\x01\x02\x03\x04").
        assertEquals("md5bb41a296aab6baccb36ff243a562abff",
                Md5Password.encode("postgres", "secret".getBytes(StandardCharsets.UTF_8), new byte[] {1, 2, 3, 4}));
    }

    @Test
    void matchesIndependentComputationWithHighBitSalt() throws Exception {
        byte[] salt = {(byte) 0xFF, 0x00, (byte) 0x80, 0x7F};
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        String inner = hex(md5.digest("pässwordrépl".getBytes(StandardCharsets.UTF_8)));
        md5.update(inner.getBytes(StandardCharsets.US_ASCII));
        md5.update(salt);
        assertEquals("md5" + hex(md5.digest()),
                Md5Password.encode("répl", "pässword".getBytes(StandardCharsets.UTF_8), salt));
    }

    @Test
    void saltMustBeFourBytes() {
        assertThrows(IllegalArgumentException.class, () -> Md5Password.encode("u", new byte[] {1}, new byte[3]));
    }

    private static String hex(byte[] b) {
        return String.format("%032x", new BigInteger(1, b));
    }
}
