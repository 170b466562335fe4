package io.pgrepl.client.internal.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/** The AuthenticationMD5Password answer: {@code "md5" + hex(md5(hex(md5(password ‖ user)) ‖ salt))}. */
final class Md5Password {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Md5Password() {
    }

    /**
     * @param user     the startup user name (its UTF-8 bytes are hashed)
     * @param password the password bytes
     * @param salt     the 4-byte salt from the server
     * @return the 35-character string to send (without the terminating NUL)
     */
    public static String encode(String user, byte[] password, byte[] salt) {
        if (salt.length != 4) {
            throw new IllegalArgumentException("MD5 salt must be 4 bytes, got " + salt.length);
        }
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 unavailable", e);
        }
        md5.update(password);
        md5.update(user.getBytes(StandardCharsets.UTF_8));
        byte[] inner = hex(md5.digest());
        md5.update(inner);
        md5.update(salt);
        byte[] outer = hex(md5.digest());
        String result = "md5" + new String(outer, StandardCharsets.US_ASCII);
        Arrays.fill(inner, (byte) 0);
        return result;
    }

    private static byte[] hex(byte[] digest) {
        byte[] out = new byte[digest.length * 2];
        for (int i = 0; i < digest.length; i++) {
            out[2 * i] = (byte) HEX[(digest[i] >> 4) & 0xF];
            out[2 * i + 1] = (byte) HEX[digest[i] & 0xF];
        }
        return out;
    }
}
