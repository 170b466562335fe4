package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ServerVersionTest {
    @Test
    void parsesReleaseDevelAndPackagedVersions() {
        assertEquals(170006, ServerVersion.parse("17.6"));
        assertEquals(100023, ServerVersion.parse("10.23"));
        assertEquals(160010, ServerVersion.parse("16.10 (Debian 16.10-1.pgdg120+1)"));
        assertEquals(180000, ServerVersion.parse("18beta1"));
        assertEquals(90624, ServerVersion.parse("9.6.24"));
        assertEquals(0, ServerVersion.parse("garbage"));
    }
}
