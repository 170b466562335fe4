package io.pgrepl.client.internal.auth;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;

/**
 * SASLprep (RFC 4013) with PostgreSQL's rules, which the server applied when it stored the secret:
 * a pure-ASCII password is used unchanged (control characters included), and a password that is
 * not valid UTF-8, becomes empty, or contains prohibited characters is used as its raw bytes
 * rather than rejected.
 *
 * <p>Like PostgreSQL, the prohibition, bidi and unassigned checks look at the mapped string
 * <em>before</em> NFKC; a different order would store-and-compute different secrets.
 */
final class SaslPrep {
    /** How a password was turned into the bytes SCRAM uses. */
    public enum Outcome {
        /** Pure ASCII: used unchanged. */
        ASCII,
        /** Mapped and NFKC-normalised. */
        PREPARED,
        /** Not valid UTF-8: raw bytes used. */
        INVALID_UTF8,
        /** Prohibited output, bidi violation, unassigned code point or empty after mapping: raw bytes used. */
        PROHIBITED
    }

    /** The bytes to feed PBKDF2 and how they were obtained. */
    public static final class Result {
        private final byte[] bytes;
        private final Outcome outcome;

        Result(byte[] bytes, Outcome outcome) {
            this.bytes = bytes;
            this.outcome = outcome;
        }

        /**
         * The caller owns (and should clear) this array.
         *
         * @return the bytes
         */
        public byte[] bytes() {
            return bytes;
        }

        /** {@return which rule produced the bytes} */
        public Outcome outcome() {
            return outcome;
        }

        @Override
        public String toString() {
            return "SaslPrep.Result[" + outcome + ", " + bytes.length + " bytes]";
        }
    }

    private SaslPrep() {
    }

    /**
     * Returns the bytes SCRAM must use for this UTF-8 password (a fresh array; never throws on content).
     *
     * @param password the password as UTF-8 (or raw) bytes
     * @return the normalised bytes, or the raw bytes where SASLprep does not apply
     */
    public static byte[] prepare(byte[] password) {
        return apply(password).bytes();
    }

    /**
     * Like {@link #prepare} but also says which rule applied.
     *
     * @param password the password as UTF-8 (or raw) bytes
     * @return the bytes and the rule
     */
    public static Result apply(byte[] password) {
        boolean ascii = true;
        for (byte b : password) {
            if (b < 0) {
                ascii = false;
                break;
            }
        }
        if (ascii) {
            return new Result(password.clone(), Outcome.ASCII);
        }
        int[] input = decodeUtf8(password);
        if (input == null) {
            return new Result(password.clone(), Outcome.INVALID_UTF8);
        }
        // 1) map: non-ASCII spaces to U+0020, "commonly mapped to nothing" removed.
        int[] mapped = new int[input.length];
        int n = 0;
        for (int cp : input) {
            if (StringPrepTables.contains(StringPrepTables.NON_ASCII_SPACE, cp)) {
                mapped[n++] = ' ';
            } else if (!StringPrepTables.contains(StringPrepTables.MAPPED_TO_NOTHING, cp)) {
                mapped[n++] = cp;
            }
        }
        java.util.Arrays.fill(input, 0);
        if (n == 0 || !allowed(mapped, n)) {
            java.util.Arrays.fill(mapped, 0);
            return new Result(password.clone(), Outcome.PROHIBITED);
        }
        // 2) normalise (NFKC).
        String normalized = Normalizer.normalize(new String(mapped, 0, n), Normalizer.Form.NFKC);
        java.util.Arrays.fill(mapped, 0);
        return new Result(normalized.getBytes(StandardCharsets.UTF_8), Outcome.PREPARED);
    }

    private static boolean allowed(int[] cps, int n) {
        boolean randAl = false;
        for (int i = 0; i < n; i++) {
            int cp = cps[i];
            if (StringPrepTables.contains(StringPrepTables.PROHIBITED, cp)
                    || StringPrepTables.contains(StringPrepTables.UNASSIGNED, cp)) {
                return false;
            }
            randAl |= StringPrepTables.contains(StringPrepTables.RAND_AL_CAT, cp);
        }
        if (randAl) {
            for (int i = 0; i < n; i++) {
                if (StringPrepTables.contains(StringPrepTables.L_CAT, cps[i])) {
                    return false;
                }
            }
            return StringPrepTables.contains(StringPrepTables.RAND_AL_CAT, cps[0])
                    && StringPrepTables.contains(StringPrepTables.RAND_AL_CAT, cps[n - 1]);
        }
        return true;
    }

    /** Strict UTF-8 to code points, or null when the bytes are not valid UTF-8. */
    private static int[] decodeUtf8(byte[] bytes) {
        CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            return null;
        }
        int[] cps = chars.codePoints().toArray();
        java.util.Arrays.fill(chars.array(), '\0');
        return cps;
    }
}
