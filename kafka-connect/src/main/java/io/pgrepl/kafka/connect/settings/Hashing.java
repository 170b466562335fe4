package io.pgrepl.kafka.connect.settings;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * column.mask.hash.ALGORITHM.with.salt.SALT (v1) and column.mask.hash.v2.ALGORITHM.with.salt.SALT,
 * as Debezium documents them: the digest of the salt followed by the value's bytes, in lower-case
 * hex, cut to the column's declared length. Version 1 digests the value's Java serialization (which
 * is why the same text hashed elsewhere differs), version 2 its UTF-8 text.
 */
final class Hashing {
    private final String algorithm;
    private final byte[] salt;
    private final boolean v2;

    Hashing(String algorithm, String salt, boolean v2) {
        this.algorithm = algorithm;
        this.salt = salt.getBytes(StandardCharsets.UTF_8);
        this.v2 = v2;
        digest(); // fails here for an unknown algorithm
    }

    /** {@return the hex digest of {@code value}, at most {@code length} characters (0: unbounded)} */
    String hash(String value, int length) {
        MessageDigest d = digest();
        d.update(salt);
        String hex = HexFormat.of().formatHex(d.digest(v2 ? value.getBytes(StandardCharsets.UTF_8) : serialized(value)));
        return length > 0 && hex.length() > length ? hex.substring(0, length) : hex;
    }

    private MessageDigest digest() {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalArgumentException("no such digest algorithm in this JVM: " + algorithm
                    + " (Java's names: MD5, SHA-1, SHA-256, SHA-384, SHA-512, SHA3-256, ...)");
        }
    }

    private static byte[] serialized(String value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
