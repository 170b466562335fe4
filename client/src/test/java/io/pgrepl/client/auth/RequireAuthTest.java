package io.pgrepl.client.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequireAuthTest {
    @Test
    void plainList() {
        RequireAuth ra = RequireAuth.parse("scram-sha-256,md5");
        assertEquals(EnumSet.of(RequireAuth.Method.SCRAM_SHA_256, RequireAuth.Method.MD5), ra.allowedMethods());
        assertTrue(ra.authenticationRequired());
        assertFalse(ra.isUnrestricted());
    }

    @Test
    void negatedList() {
        RequireAuth ra = RequireAuth.parse("!password,!md5");
        assertEquals(EnumSet.of(RequireAuth.Method.GSS, RequireAuth.Method.SSPI, RequireAuth.Method.SCRAM_SHA_256,
                RequireAuth.Method.OAUTH), ra.allowedMethods());
        assertFalse(ra.authenticationRequired());
        assertTrue(RequireAuth.parse("!none").authenticationRequired());
        assertFalse(RequireAuth.parse("none").authenticationRequired());
        assertTrue(RequireAuth.parse("none").allowedMethods().isEmpty());
    }

    @Test
    void emptyIsUnrestricted() {
        assertTrue(RequireAuth.parse("").isUnrestricted());
        assertTrue(RequireAuth.parse(null).isUnrestricted());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "password,!md5|negative require_auth method \"md5\" cannot be mixed with non-negative methods",
        "!password,md5|require_auth method \"md5\" cannot be mixed with negative methods",
        "md5,md5|require_auth method \"md5\" is specified more than once",
        "!none,!none|require_auth method \"!none\" is specified more than once",
        "kerberos|invalid require_auth value: \"kerberos\"",
        "password,|invalid require_auth value: \"\"",
        "password, md5|invalid require_auth value: \" md5\"",
    })
    void invalidValues(String value, String message) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> RequireAuth.parse(value)).getMessage());
    }
}
