package io.pgrepl.client.internal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SaslPrepTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertPrepared(String input, String expected) {
        SaslPrep.Result r = SaslPrep.apply(utf8(input));
        assertEquals(SaslPrep.Outcome.PREPARED, r.outcome());
        assertArrayEquals(utf8(expected), r.bytes());
    }

    private static void assertRaw(byte[] input, SaslPrep.Outcome outcome) {
        SaslPrep.Result r = SaslPrep.apply(input);
        assertEquals(outcome, r.outcome());
        assertArrayEquals(input, r.bytes());
    }

    @Test
    void asciiIsUnchangedIncludingControlCharacters() {
        byte[] in = utf8("pass\u0001word\u007F\t ");
        SaslPrep.Result r = SaslPrep.apply(in);
        assertEquals(SaslPrep.Outcome.ASCII, r.outcome());
        assertArrayEquals(in, r.bytes());
    }

    @Test
    void rfc4013Examples() {
        assertPrepared("I\u00ADX", "IX");          // soft hyphen mapped to nothing
        assertPrepared("\u00AA", "a");             // NFKC
        assertPrepared("\u2168", "IX");            // ROMAN NUMERAL NINE, NFKC
        assertRaw(utf8("\u0007\u00E9"), SaslPrep.Outcome.PROHIBITED);   // control character
        assertRaw(utf8("\u0627\u0031"), SaslPrep.Outcome.PROHIBITED);   // RandAL must end the string
    }

    @ParameterizedTest
    @CsvSource({
        "a\u00A0b, a b",       // C.1.2 no-break space becomes U+0020
        "a\u3000b, a b",       // ideographic space
        "caf\u00E9, caf\u00E9",
        "cafe\u0301, caf\u00E9", // NFKC composes
        "\uFB01x, fix",         // ligature
        "\u05D0\u05D1, \u05D0\u05D1", // all-RTL is fine
    })
    void mappingAndNormalisation(String input, String expected) {
        assertPrepared(input, expected);
    }

    @Test
    void prohibitedAndUnassignedFallBackToRawBytes() {
        assertRaw(utf8("a\uE000b\u00E9"), SaslPrep.Outcome.PROHIBITED);      // private use (C.3)
        assertRaw(utf8("\u00E9\u0221"), SaslPrep.Outcome.PROHIBITED);         // unassigned in Unicode 3.2
        assertRaw(utf8("\u00E9\uD83D\uDE00"), SaslPrep.Outcome.PROHIBITED);   // emoji: unassigned in 3.2
        assertRaw(utf8("\u05D0a\u05D1"), SaslPrep.Outcome.PROHIBITED);       // RandAL mixed with L
        assertRaw(utf8("\u00AD"), SaslPrep.Outcome.PROHIBITED);             // empty after mapping
        assertRaw(utf8("\u00E9\u200E"), SaslPrep.Outcome.PROHIBITED);       // LRM (C.8)
    }

    @Test
    void prohibitionIsCheckedBeforeNormalisationAsInPostgres() {
        // U+0340 is prohibited (C.8) but NFKC turns it into the allowed U+0300. PostgreSQL checks
        // the un-normalised string, so the password falls back to its raw bytes.
        assertRaw(utf8("a\u0340"), SaslPrep.Outcome.PROHIBITED);
    }

    @Test
    void invalidUtf8FallsBackToRawBytes() {
        assertRaw(new byte[] {'a', (byte) 0xC3, (byte) 0x28}, SaslPrep.Outcome.INVALID_UTF8);
        assertRaw(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, SaslPrep.Outcome.INVALID_UTF8); // surrogate
        assertRaw(new byte[] {(byte) 0xC0, (byte) 0xAF}, SaslPrep.Outcome.INVALID_UTF8);              // overlong
    }

    @Test
    void tableLookupsAtBoundaries() {
        assertEquals(true, StringPrepTables.contains(StringPrepTables.PROHIBITED, 0x0));
        assertEquals(true, StringPrepTables.contains(StringPrepTables.PROHIBITED, 0x10FFFF));
        assertEquals(false, StringPrepTables.contains(StringPrepTables.PROHIBITED, 'a'));
        assertEquals(true, StringPrepTables.contains(StringPrepTables.UNASSIGNED, 0x0221));
        assertEquals(false, StringPrepTables.contains(StringPrepTables.UNASSIGNED, 0x0220));
        assertEquals(true, StringPrepTables.contains(StringPrepTables.L_CAT, 'Z'));
        assertEquals(true, StringPrepTables.contains(StringPrepTables.RAND_AL_CAT, 0x05D0));
    }
}
