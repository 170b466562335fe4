package io.pgrepl.client.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Where the password comes from, asked only when the server actually wants one (so a pgpass file
 * is not read for trust connections).
 */
@FunctionalInterface
public interface PasswordSource {
    /**
     * A fresh copy of the password as UTF-8 bytes, or empty when none is known. The caller clears
     * the array when done. An empty array counts as no password, as in libpq.
     *
     * @return the password, or empty
     */
    Optional<byte[]> password();

    /** {@return a source that knows no password} */
    static PasswordSource none() {
        return Fixed.NONE;
    }

    /**
     * A fixed password, sent as UTF-8.
     *
     * @param password the password, or null for none
     * @return the source
     */
    static PasswordSource of(String password) {
        return password == null ? none() : new Fixed(password.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * For passwords that are not valid UTF-8 (PostgreSQL then uses the raw bytes for SCRAM).
     *
     * @param password the raw bytes (copied), or null for none
     * @return the source
     */
    static PasswordSource ofBytes(byte[] password) {
        return password == null ? none() : new Fixed(password.clone());
    }

    /** A fixed password that never shows in {@code toString()}. */
    final class Fixed implements PasswordSource {
        static final Fixed NONE = new Fixed(null);
        private final byte[] bytes;

        private Fixed(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public Optional<byte[]> password() {
            return bytes == null ? Optional.empty() : Optional.of(bytes.clone());
        }

        /** Overwrites the stored copy; later calls see an all-zero password. */
        public void destroy() {
            if (bytes != null) {
                Arrays.fill(bytes, (byte) 0);
            }
        }

        @Override
        public String toString() {
            return bytes == null ? "PasswordSource[none]" : "PasswordSource[****]";
        }
    }
}
