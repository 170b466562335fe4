package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The parts of the API that need no server. */
class SpecTest {

    @Test
    void userToStringHidesThePassword() {
        PgUser user = new PgUser("postgres", "s3cr3t-pw");
        assertFalse(user.toString().contains("s3cr3t-pw"), user.toString());
        assertTrue(user.toString().contains("postgres"));
        PgServerSpec spec = PgServer.builder().superuserPassword("s3cr3t-pw").backend(Backend.EMBEDDED).build();
        assertFalse(spec.toString().contains("s3cr3t-pw"), spec.toString());
    }

    @Test
    void urlEncodesUserInfo() {
        assertEquals("a%3Ab%40c%2Fd%20%C3%A9", UrlParts.encode("a:b@c/d é"));
    }

    @Test
    void matrixComesFromTheSystemProperty() {
        String saved = System.getProperty("pg.versions");
        try {
            System.setProperty("pg.versions", "17, 12");
            assertEquals(List.of(17, 12), PgVersions.matrix());
            System.setProperty("pg.versions", "");
            assertEquals(List.of(10, 12, 13, 14, 15, 16, 17, 18), PgVersions.matrix());
            System.setProperty("pg.versions", "9");
            assertThrows(IllegalArgumentException.class, PgVersions::matrix);
        } finally {
            if (saved == null) {
                System.clearProperty("pg.versions");
            } else {
                System.setProperty("pg.versions", saved);
            }
        }
    }

    @Test
    void hbaCoversNormalAndReplicationConnections() {
        String plain = HbaConf.render(PgServer.builder().auth(AuthMethod.MD5).build(), 17);
        assertTrue(plain.contains("host all all 127.0.0.1/32 md5\n"), plain);
        assertTrue(plain.contains("host replication all 127.0.0.1/32 md5\n"), plain);

        String sslOnly = HbaConf.render(PgServer.builder().auth(AuthMethod.SCRAM_SHA_256)
                .tls(TlsOptions.rsaSha256().hostsslOnly(true)).build(), 17);
        assertFalse(sslOnly.contains("host "), sslOnly);
        assertFalse(sslOnly.contains("hostnossl"), sslOnly);
        assertTrue(sslOnly.contains("hostssl replication all 127.0.0.1/32 scram-sha-256\n"), sslOnly);

        String verifyCa10 = HbaConf.render(PgServer.builder().version(10).auth(AuthMethod.PASSWORD)
                .tls(TlsOptions.rsaSha256().clientCertMode(ClientCertMode.VERIFY_CA)).build(), 10);
        assertTrue(verifyCa10.contains("hostssl all all 127.0.0.1/32 password clientcert=1\n"), verifyCa10);
        assertTrue(verifyCa10.contains("hostnossl all all 127.0.0.1/32 password\n"), verifyCa10);
    }

    @Test
    void dockerBackendIsChosenByProperty() {
        String saved = System.getProperty("pg.backend");
        try {
            System.setProperty("pg.backend", "docker");
            assertEquals(Backend.DOCKER, Backend.fromSystemProperty());
            System.setProperty("pg.backend", "bogus");
            assertThrows(IllegalArgumentException.class, Backend::fromSystemProperty);
        } finally {
            if (saved == null) {
                System.clearProperty("pg.backend");
            } else {
                System.setProperty("pg.backend", saved);
            }
        }
    }
}
