package io.pgrepl.it.connect;

import static io.pgrepl.it.connect.Await.await;
import static io.pgrepl.it.connect.Await.failure;
import static io.pgrepl.it.connect.Await.serverError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgUser;
import io.pgrepl.testkit.PgVersions;
import io.pgrepl.testkit.TlsOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Every authentication method, with and without TLS, on every major of {@code -Dpg.versions}.
 * One server per (major, auth method), started when its group begins and stopped when it ends,
 * so at most one or two servers run at a time. Each server has TLS (RSA/SHA-256) but also
 * accepts plaintext, so both paths are tried against the same server.
 */
class ConnectMatrixTest {
    private static final List<PgServer> open = new ArrayList<>();

    @AfterAll
    static void closeAll() {
        synchronized (open) {
            open.forEach(PgServer::close);
            open.clear();
        }
    }

    @TestFactory
    Stream<DynamicNode> authenticationMatrix() {
        return PgVersions.matrix().stream().map(v -> dynamicContainer("PG " + v,
                Stream.concat(Stream.of(AuthMethod.values()).map(auth -> group(v, auth)), Stream.of(ecdsaHostsslOnly(v)))));
    }

    /** SCRAM with an ECDSA/SHA-384 certificate (channel binding hashes with SHA-384), TLS-only pg_hba. */
    private DynamicNode ecdsaHostsslOnly(int version) {
        Lazy server = new Lazy(() -> PgServer.builder().version(version).auth(AuthMethod.SCRAM_SHA_256)
                .tls(TlsOptions.ecdsaSha384().hostsslOnly(true)).start());
        return dynamicContainer("SCRAM_SHA_256 + ECDSA-SHA384, hostssl only", List.of(
                test("channel_binding=require", () -> {
                    PgServer s = server.get();
                    var stage = PgConnection.connect(cfg(s, s.superuser(), SslMode.VERIFY_FULL).host("localhost")
                            .sslRootCert(s.tls().orElseThrow().caCertFile()).channelBinding("require").build());
                    if (version >= 11) {
                        try (PgConnection c = await(stage)) {
                            assertTrue(c.isChannelBound());
                            assertEquals("SHA384withECDSA", c.serverCertificate().orElseThrow().getSigAlgName());
                        }
                    } else {
                        AuthenticationException ae = assertInstanceOf(AuthenticationException.class, failure(stage));
                        assertEquals(AuthenticationException.Reason.CHANNEL_BINDING_REQUIRED, ae.reason());
                    }
                }),
                test("sslmode disable: 28000 (no pg_hba entry); allow retries with TLS; prefer uses TLS", () -> {
                    PgServer s = server.get();
                    serverError(PgConnection.connect(cfg(s, s.replicationUser(), SslMode.DISABLE).build()), "28000");
                    for (SslMode mode : List.of(SslMode.ALLOW, SslMode.PREFER)) {
                        try (PgConnection c = await(PgConnection.connect(cfg(s, s.replicationUser(), mode).build()))) {
                            assertTrue(c.isTls(), mode.keyword());
                        }
                    }
                }),
                test("stop server", server::close)));
    }

    private DynamicNode group(int version, AuthMethod auth) {
        Lazy server = new Lazy(() -> PgServer.builder().version(version).auth(auth).tls(TlsOptions.rsaSha256()).start());
        List<DynamicNode> tests = new ArrayList<>();
        tests.add(test("superuser plaintext", () -> {
            try (PgConnection c = await(PgConnection.connect(cfg(server.get(), server.get().superuser(), SslMode.DISABLE).build()))) {
                assertFalse(c.isTls());
                assertEquals("1", await(c.query("SELECT 1")).singleRow().get(0));
                assertEquals(version, c.serverMajor());
                assertTrue(c.backendPid() > 0);
            }
        }));
        tests.add(test("superuser TLS (sslmode=require)", () -> {
            try (PgConnection c = await(PgConnection.connect(cfg(server.get(), server.get().superuser(), SslMode.REQUIRE).build()))) {
                assertTrue(c.isTls());
                assertEquals("t", await(c.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")).singleRow().get(0));
                // SCRAM over TLS picks -PLUS whenever the server offers it (11+).
                assertEquals(auth == AuthMethod.SCRAM_SHA_256 && version >= 11, c.isChannelBound());
            }
        }));
        tests.add(test("replication user: logical and physical walsender", () -> {
            PgServer s = server.get();
            try (PgConnection c = await(PgConnection.connect(cfg(s, s.replicationUser(), SslMode.PREFER)
                    .replication(ReplicationMode.DATABASE).build()))) {
                assertEquals("postgres", await(c.identifySystem()).dbname());
            }
            try (PgConnection c = await(PgConnection.connect(cfg(s, s.replicationUser(), SslMode.DISABLE)
                    .replication(ReplicationMode.PHYSICAL).build()))) {
                assertEquals(null, await(c.identifySystem()).dbname());
            }
        }));
        if (auth != AuthMethod.TRUST) {
            tests.add(test("wrong password: 28P01, plaintext and TLS", () -> {
                PgServer s = server.get();
                for (SslMode mode : List.of(SslMode.DISABLE, SslMode.REQUIRE)) {
                    PgUser wrong = new PgUser(s.superuser().name(), "not-the-password");
                    Throwable t = failure(PgConnection.connect(cfg(s, wrong, mode).build()));
                    assertTrue(t instanceof io.pgrepl.client.PgException pe && "28P01".equals(pe.sqlState()), () -> mode + ": " + t);
                    assertFalse(t.getMessage().contains("not-the-password"));
                }
            }));
        }
        tests.add(test("role without REPLICATION on a replication connection: 42501", () -> {
            PgServer s = server.get();
            serverError(PgConnection.connect(cfg(s, s.plainUser(), SslMode.DISABLE).replication(ReplicationMode.DATABASE).build()), "42501");
        }));
        tests.add(test("missing database: 3D000", () -> {
            PgServer s = server.get();
            serverError(PgConnection.connect(cfg(s, s.superuser(), SslMode.REQUIRE).database("no_such_db").build()), "3D000");
        }));
        tests.add(test("channel_binding=require without TLS: refused before any password", () -> {
            PgServer s = server.get();
            Throwable t = failure(PgConnection.connect(cfg(s, s.superuser(), SslMode.DISABLE).channelBinding("require").build()));
            AuthenticationException ae = assertInstanceOf(AuthenticationException.class, t);
            assertEquals(AuthenticationException.Reason.CHANNEL_BINDING_REQUIRED, ae.reason());
        }));
        tests.add(test("channel_binding=require over TLS", () -> {
            PgServer s = server.get();
            var stage = PgConnection.connect(cfg(s, s.superuser(), SslMode.REQUIRE).channelBinding("require").build());
            if (auth == AuthMethod.SCRAM_SHA_256 && version >= 11) {
                try (PgConnection c = await(stage)) {
                    assertTrue(c.isChannelBound());
                }
            } else {
                // PG10 offers no -PLUS; password/md5/trust never bind: refused before a secret leaves.
                AuthenticationException ae = assertInstanceOf(AuthenticationException.class, failure(stage));
                assertEquals(AuthenticationException.Reason.CHANNEL_BINDING_REQUIRED, ae.reason());
            }
        }));
        if (auth == AuthMethod.SCRAM_SHA_256) {
            tests.addAll(TlsChecks.tests(version, server::get));
        }
        tests.add(test("stop server", server::close));
        return dynamicContainer(auth.name(), tests);
    }

    static ConnectionConfig.Builder cfg(PgServer s, PgUser user, SslMode mode) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(user.name()).password(user.password())
                .database("postgres").sslMode(mode);
    }

    static DynamicNode test(String name, Executable body) {
        return dynamicTest(name, body);
    }

    /** Starts the server on first use; registered so @AfterAll stops it even if "stop server" never runs. */
    static final class Lazy {
        private final Supplier<PgServer> starter;
        private PgServer server;

        Lazy(Supplier<PgServer> starter) {
            this.starter = starter;
        }

        synchronized PgServer get() {
            if (server == null) {
                server = starter.get();
                synchronized (open) {
                    open.add(server);
                }
            }
            return server;
        }

        synchronized void close() {
            if (server != null) {
                server.close();
                synchronized (open) {
                    open.remove(server);
                }
                server = null;
            }
        }
    }
}
