package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HostnameVerifierTest {
    @Test
    void exactNamesMatchCaseInsensitively() {
        assertTrue(HostnameVerifier.dnsMatches("db.example.com", "DB.Example.com"));
        assertTrue(HostnameVerifier.dnsMatches("db.example.com.", "db.example.com"));
        assertFalse(HostnameVerifier.dnsMatches("db.example.com", "example.com"));
    }

    @Test
    void wildcardCoversExactlyOneLeftMostLabel() {
        assertTrue(HostnameVerifier.dnsMatches("db.example.com", "*.example.com"));
        assertFalse(HostnameVerifier.dnsMatches("a.db.example.com", "*.example.com"));
        assertFalse(HostnameVerifier.dnsMatches("example.com", "*.example.com"));
        assertFalse(HostnameVerifier.dnsMatches("db.example.com", "d*.example.com"));
        assertFalse(HostnameVerifier.dnsMatches("db.example.com", "*.*.com"));
        assertFalse(HostnameVerifier.dnsMatches("com", "*."));
    }

    @Test
    void ipLiteralsAreRecognised() {
        assertTrue(HostnameVerifier.isIpLiteral("127.0.0.1"));
        assertTrue(HostnameVerifier.isIpLiteral("::1"));
        assertFalse(HostnameVerifier.isIpLiteral("localhost"));
        assertFalse(HostnameVerifier.isIpLiteral("1.2.3.example"));
    }
}
