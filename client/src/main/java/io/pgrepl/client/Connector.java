package io.pgrepl.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.auth.OAuthBearerTokenSource;
import io.pgrepl.client.auth.RequireAuth;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.internal.AuthSession;
import io.pgrepl.client.internal.AuthenticatorSession;
import io.pgrepl.client.internal.BackendFrameDecoder;
import io.pgrepl.client.internal.ConnectionHandler;
import io.pgrepl.client.internal.ReusedReadBuffer;
import io.pgrepl.client.internal.Frontend;
import io.pgrepl.client.internal.SslNegotiator;
import io.pgrepl.client.internal.StartupAnswerCheck;
import io.pgrepl.client.internal.StartupExchange;
import io.pgrepl.client.internal.TlsSupport;
import io.pgrepl.client.internal.Transports;
import io.pgrepl.client.internal.auth.Authenticator;
import io.pgrepl.codec.backend.BackendKeyData;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Opens connections: TCP, then (per sslmode) SSLRequest or direct TLS, then the startup
 * exchange. libpq's fallbacks are kept: {@code prefer} retries in plaintext when the TLS
 * handshake fails, {@code allow} retries with TLS when the plaintext attempt is rejected by
 * pg_hba (28000).
 */
final class Connector {
    /** How the transport is secured. */
    enum Plan { PLAIN, SSL_IF_AVAILABLE, SSL_REQUIRED, DIRECT }

    private Connector() {}

    /**
     * Tries each server of {@link ConnectionConfig#hosts()} as libpq does (see {@link HostSelection});
     * one server with {@code target_session_attrs=any} is a plain single attempt.
     */
    static CompletableFuture<PgConnection> connect(ConnectionConfig cfg, Function<ConnectionConfig, AuthSessionFactory> auth) {
        if (cfg.hosts().size() == 1 && cfg.targetSessionAttrs() == io.pgrepl.client.config.TargetSessionAttrs.ANY) {
            return handOver(connectOne(cfg, auth));
        }
        return HostSelection.connect(cfg, h -> connectOne(cfg.forHost(h), auth), new java.util.Random());
    }

    /**
     * The caller's future, apart from the attempts' ones (sslmode fallbacks chain several): when
     * the caller completes it first (a deadline of its own, a cancel), a connection that still
     * comes through is closed rather than left open with no owner.
     */
    private static CompletableFuture<PgConnection> handOver(CompletableFuture<PgConnection> inner) {
        CompletableFuture<PgConnection> out = new CompletableFuture<>();
        inner.whenComplete((c, e) -> {
            if (e != null) {
                out.completeExceptionally(e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                        ? e.getCause() : e);
            } else if (!out.complete(c)) {
                c.close();
            }
        });
        return out;
    }

    /** One server, with libpq's sslmode fallbacks. */
    static CompletableFuture<PgConnection> connectOne(ConnectionConfig cfg, Function<ConnectionConfig, AuthSessionFactory> auth) {
        AuthSessionFactory factory = auth.apply(cfg);
        TlsSupport tls = cfg.sslMode() == SslMode.DISABLE ? null : TlsSupport.create(cfg);
        return switch (cfg.sslMode()) {
            case DISABLE -> attempt(cfg, Plan.PLAIN, null, factory);
            case ALLOW -> attempt(cfg, Plan.PLAIN, null, factory).exceptionallyCompose(e ->
                    e instanceof PgException pe && "28000".equals(pe.sqlState())
                            ? attempt(cfg, Plan.SSL_REQUIRED, tls, factory) : CompletableFuture.failedFuture(e));
            case PREFER -> attempt(cfg, Plan.SSL_IF_AVAILABLE, tls, factory).exceptionallyCompose(e ->
                    e instanceof PgClientException ce && ce.kind() == PgClientException.Kind.TLS
                            ? attempt(cfg, Plan.PLAIN, null, factory) : CompletableFuture.failedFuture(e));
            default -> attempt(cfg, cfg.sslNegotiation() == SslNegotiation.DIRECT ? Plan.DIRECT : Plan.SSL_REQUIRED, tls, factory);
        };
    }

    /** Builds the authentication state for one attempt; the certificate is null without TLS. */
    interface AuthSessionFactory {
        AuthSession create(X509Certificate serverCertificate);
    }

    private static CompletableFuture<PgConnection> attempt(ConnectionConfig cfg, Plan plan, TlsSupport tls, AuthSessionFactory auth) {
        CompletableFuture<PgConnection> result = new CompletableFuture<>();
        ConnectionHandler[] holder = new ConnectionHandler[1]; // written and read on the channel's event loop
        open(cfg, plan, tls, result, ch -> {
            ConnectionHandler h = new ConnectionHandler(ch);
            holder[0] = h;
            ch.pipeline().addLast("startup-answer", new StartupAnswerCheck())
                    .addLast("frames", new BackendFrameDecoder(h, cfg.maxFrameSize())).addLast("connection", h);
        }, (ch, cert) -> {
            StartupExchange se = new StartupExchange(cfg.maxProtocolVersion().code(), cfg.minProtocolVersion().minor(),
                    startupParameters(cfg), auth.create(cert));
            holder[0].submit(se);
            se.future().whenComplete((r, e) -> {
                if (e != null) {
                    fail(ch, result, e);
                } else {
                    succeed(ch, result, new PgConnection(cfg, ch, holder[0], r.keyData(), cert, plan, r.channelBound(),
                            r.protocolMinor() == 2 ? ProtocolVersion.V3_2 : ProtocolVersion.V3_0, r.unsupportedOptions()));
                }
            });
        });
        return result;
    }

    /** The authentication state for one attempt on {@code cfg}; the certificate is null without TLS. */
    static AuthSession authSession(ConnectionConfig cfg, X509Certificate cert) {
        return new AuthenticatorSession(new Authenticator(cfg.user(), Passwords.source(cfg),
                ChannelBindingMode.parse(cfg.channelBinding()), RequireAuth.parse(cfg.requireAuth()),
                Optional.ofNullable(cert), cfg.oauthTokenSource(), new OAuthBearerTokenSource.Request(
                        cfg.host(), cfg.port(), cfg.user(), cfg.database(), cfg.replication() != ReplicationMode.NONE)));
    }

    /**
     * Sends a CancelRequest for the backend {@code keyData} names over a new connection secured
     * like the original one; fails at once when the server sent no BackendKeyData.
     */
    static CompletableFuture<Void> cancel(ConnectionConfig cfg, Plan plan, BackendKeyData keyData) {
        if (keyData == null) {
            return CompletableFuture.failedFuture(new PgClientException(PgClientException.Kind.UNSUPPORTED_BY_SERVER,
                    "server sent no BackendKeyData; cannot cancel"));
        }
        try {
            return cancel(cfg, plan, keyData.processId(), keyData.secretKey());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static CompletableFuture<Void> cancel(ConnectionConfig cfg, Plan plan, int pid, byte[] key) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<PgConnection> unused = new CompletableFuture<>();
        unused.whenComplete((c, e) -> {
            if (e != null) done.completeExceptionally(e);
        });
        TlsSupport tls = plan == Plan.PLAIN ? null : TlsSupport.create(cfg);
        open(cfg, plan == Plan.SSL_IF_AVAILABLE ? Plan.SSL_REQUIRED : plan, tls, unused, ch -> {}, (ch, cert) -> {
            // From here the server closing the socket is the expected answer, not a failure.
            unused.complete(null);
            ch.closeFuture().addListener(f -> done.complete(null));
            ch.writeAndFlush(Frontend.cancelRequest(ch.alloc(), pid, key));
        });
        return done;
    }

    static Map<String, String> startupParameters(ConnectionConfig cfg) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("user", cfg.user());
        // A physical walsender ignores the database; libpq still sends one, we leave it out.
        if (cfg.replication() != ReplicationMode.PHYSICAL) p.put("database", cfg.database());
        if (cfg.replication().startupValue() != null) p.put("replication", cfg.replication().startupValue());
        if (cfg.applicationName() != null) p.put("application_name", cfg.applicationName());
        p.putAll(ConnectionConfig.DEFAULT_STARTUP_PARAMETERS);
        p.putAll(cfg.startupParameters());
        return p;
    }

    private static void open(ConnectionConfig cfg, Plan plan, TlsSupport tls, CompletableFuture<PgConnection> result,
                             java.util.function.Consumer<Channel> init, BiConsumer<Channel, X509Certificate> onSecured) {
        EventLoopGroup group = cfg.eventLoopGroup() != null ? cfg.eventLoopGroup() : Transports.sharedGroup();
        long timeoutMs = Math.max(1, cfg.connectTimeout().toMillis());
        Bootstrap b = new Bootstrap().group(group).channel(Transports.channelType(group))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMs))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new ReusedReadBuffer(ReusedReadBuffer.DEFAULT_SIZE))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        init.accept(ch);
                    }
                });
        // The channel exists as soon as connect() returns; the timer runs on its event loop, where
        // every other step of the attempt runs too, so no state is shared across threads and the
        // first outcome (timeout, failure, or success) owns the result. Losers close the channel.
        io.netty.channel.ChannelFuture connecting =
                b.connect(cfg.hostAddress() != null ? cfg.hostAddress() : cfg.host(), cfg.port());
        Channel channel = connecting.channel();
        ScheduledFuture<?> timer = channel.eventLoop().schedule(() -> {
            fail(channel, result, new PgClientException(PgClientException.Kind.TIMEOUT,
                    "connection to " + cfg.host() + ":" + cfg.port() + " timed out after " + timeoutMs + " ms"));
        }, timeoutMs, TimeUnit.MILLISECONDS);
        result.whenComplete((c, e) -> timer.cancel(false));
        connecting.addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                fail(f.channel(), result, ConnectFailures.of(cfg.host(), cfg.port(), f.cause()));
                return;
            }
            Channel ch = f.channel();
            if (result.isDone()) {
                ch.close();
                return;
            }
            ch.closeFuture().addListener(cf -> {
                SslHandler ssl = ch.pipeline().get(SslHandler.class);
                boolean handshaking = ssl != null && !ssl.handshakeFuture().isSuccess();
                fail(ch, result, plan == Plan.DIRECT && (ssl == null || handshaking)
                        ? new PgClientException(PgClientException.Kind.TLS, "server closed the connection during the direct"
                                + " TLS handshake (sslnegotiation=direct needs a PostgreSQL 17 or later server)")
                        : new PgClientException(PgClientException.Kind.CONNECTION, "server closed the connection during startup"));
            });
            switch (plan) {
                case PLAIN -> onSecured.accept(ch, null);
                case DIRECT -> startTls(ch, tls, plan, result, onSecured);
                case SSL_IF_AVAILABLE, SSL_REQUIRED -> {
                    ch.pipeline().addFirst("ssl-negotiation", new SslNegotiator(answer -> {
                        if (answer == SslNegotiator.Answer.SSL) {
                            startTls(ch, tls, plan, result, onSecured);
                        } else if (plan == Plan.SSL_REQUIRED) {
                            fail(ch, result, new PgClientException(PgClientException.Kind.TLS,
                                    "server does not support SSL, but SSL was required"));
                        } else {
                            onSecured.accept(ch, null);
                        }
                    }, e -> fail(ch, result, e)));
                    ch.writeAndFlush(Frontend.sslRequest(ch.alloc()));
                }
            }
        });
    }

    private static void startTls(Channel ch, TlsSupport tls, Plan plan, CompletableFuture<PgConnection> result,
                                 BiConsumer<Channel, X509Certificate> onSecured) {
        SslHandler ssl = tls.newHandler(ch.alloc());
        ch.pipeline().addFirst("tls", ssl);
        ssl.handshakeFuture().addListener(hf -> {
            if (!hf.isSuccess()) {
                String hint = plan == Plan.DIRECT
                        ? " (sslnegotiation=direct needs a PostgreSQL 17 or later server)" : "";
                fail(ch, result, new PgClientException(PgClientException.Kind.TLS,
                        "TLS handshake failed" + hint + ": " + rootMessage(hf.cause()), hf.cause()));
                return;
            }
            X509Certificate cert;
            try {
                cert = tls.verifyPeer(ssl.engine().getSession());
            } catch (PgClientException e) {
                fail(ch, result, e);
                return;
            }
            onSecured.accept(ch, cert);
        });
    }

    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) r = r.getCause();
        String m = r.getMessage();
        return m == null ? r.getClass().getSimpleName() : m;
    }

    /**
     * Ends the attempt with a failure and closes its channel, unless a connection was already
     * handed out on it (a late close or error of a live connection is the connection's business).
     */
    static void fail(Channel ch, CompletableFuture<?> result, Throwable e) {
        boolean won = result.completeExceptionally(e);
        if (ch != null && (won || result.isCompletedExceptionally()) && ch.isOpen()) ch.close();
    }

    /** Hands out the connection, or closes it when the attempt already ended (say, timed out). */
    static void succeed(Channel ch, CompletableFuture<PgConnection> result, PgConnection connection) {
        if (!result.complete(connection)) ch.close();
    }
}
