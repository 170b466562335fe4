package io.pgrepl.testkit.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** The JUnit extension: injection, per-class sharing, per-config servers, the version matrix. */
@PgTest
@PgServerConfig(auth = AuthMethod.MD5, settings = {"wal_sender_timeout=2s"})
class PgTestExtensionTest {
    private static PgServer fromBeforeAll;
    private static final Set<PgServer> SEEN = ConcurrentHashMap.newKeySet();
    private static final List<Integer> MATRIX_MAJORS = new ArrayList<>();

    @BeforeAll
    static void beforeAll(PgServer server) {
        fromBeforeAll = server;
    }

    @Test
    void classConfigApplies(PgServer server) {
        assertSame(fromBeforeAll, server, "one server per class and config");
        assertEquals(AuthMethod.MD5, server.authMethod());
        assertEquals("2s", server.settings().get("wal_sender_timeout"));
        assertEquals(PgVersions.defaultVersion(), server.majorVersion());
        assertTrue(server.isRunning());
        SEEN.add(server);
    }

    @Test
    void parameterConfigGetsItsOwnServer(PgServer classServer,
            @PgServerConfig(auth = AuthMethod.TRUST, tls = PgServerConfig.Tls.ECDSA_SHA384) PgServer tlsServer) {
        assertSame(fromBeforeAll, classServer);
        assertNotSame(classServer, tlsServer);
        assertEquals(AuthMethod.TRUST, tlsServer.authMethod());
        assertEquals("SHA384withECDSA", tlsServer.tls().orElseThrow().serverCertificate().getSigAlgName());
        SEEN.add(tlsServer);
    }

    @PgMatrixTest
    void matrixRunsOncePerMajor(PgServer server, TestInfo info) {
        assertEquals("PostgreSQL " + server.majorVersion(), info.getDisplayName());
        assertEquals(AuthMethod.MD5, server.authMethod(), "class-level config applies to the matrix too");
        synchronized (MATRIX_MAJORS) {
            MATRIX_MAJORS.add(server.majorVersion());
        }
        SEEN.add(server);
    }

    @AfterAll
    static void allServersStillRunUntilTheClassEnds() {
        assertEquals(PgVersions.matrix(), MATRIX_MAJORS);
        for (PgServer s : SEEN) {
            assertTrue(s.isRunning(), s::toString);
        }
    }
}
