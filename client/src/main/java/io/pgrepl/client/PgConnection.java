package io.pgrepl.client;

import io.netty.channel.Channel;
import io.pgrepl.client.internal.AuthSession;
import io.pgrepl.client.internal.AuthenticatorSession;
import io.pgrepl.client.auth.Authenticator;
import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.auth.RequireAuth;
import io.pgrepl.client.internal.ConnectionHandler;
import io.pgrepl.client.internal.SimpleQueryExchange;
import io.pgrepl.client.protocol.Exchange;
import io.pgrepl.client.protocol.Frontend;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.IdentifySystem;
import io.pgrepl.client.replication.PublicationSpec;
import io.pgrepl.client.replication.ReplicationCommands;
import io.pgrepl.client.replication.ReplicationSlotStatus;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.TimelineHistory;
import io.pgrepl.client.replication.WalSenderCommands;
import io.pgrepl.codec.backend.BackendKeyData;
import io.pgrepl.codec.backend.ErrorFields;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One connection to a PostgreSQL server (normal, logical or physical walsender). Thread-safe:
 * every method may be called from any thread; commands queue up and run one at a time on the
 * connection's event loop. No method blocks.
 *
 * <p>The streaming layer plugs in through {@link #submit(Exchange)}: an exchange that sends
 * START_REPLICATION, consumes CopyBothResponse and CopyData frames and ends with ReadyForQuery.
 */
public final class PgConnection implements AutoCloseable {
    private final ConnectionConfig config;
    private final Channel channel;
    private final ConnectionHandler handler;
    private final BackendKeyData keyData;
    private final X509Certificate serverCertificate;
    private final Connector.Plan plan;
    private final boolean channelBound;
    private final ProtocolVersion protocolVersion;
    private final List<String> unsupportedProtocolOptions;

    PgConnection(ConnectionConfig config, Channel channel, ConnectionHandler handler, BackendKeyData keyData,
                 X509Certificate serverCertificate, Connector.Plan plan, boolean channelBound,
                 ProtocolVersion protocolVersion, List<String> unsupportedProtocolOptions) {
        this.protocolVersion = protocolVersion;
        this.unsupportedProtocolOptions = List.copyOf(unsupportedProtocolOptions);
        this.channelBound = channelBound;
        this.config = config;
        this.channel = channel;
        this.handler = handler;
        this.keyData = keyData;
        this.serverCertificate = serverCertificate;
        this.plan = serverCertificate == null ? Connector.Plan.PLAIN : plan;
    }

    /** Opens a connection; the stage fails with {@link PgException} (server) or {@link PgClientException}. */
    public static CompletionStage<PgConnection> connect(ConnectionConfig config) {
        try {
            return Connector.connect(config, cfg -> cert -> authSession(cfg, cert));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Parses a libpq URI or conninfo string and connects. */
    public static CompletionStage<PgConnection> connect(String urlOrConninfo) {
        try {
            return connect(ConnectionConfig.parse(urlOrConninfo));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static AuthSession authSession(ConnectionConfig cfg, X509Certificate cert) {
        return new AuthenticatorSession(new Authenticator(cfg.user(), Passwords.source(cfg),
                ChannelBindingMode.parse(cfg.channelBinding()), RequireAuth.parse(cfg.requireAuth()),
                Optional.ofNullable(cert)));
    }

    // ---- state

    public ConnectionConfig config() {
        return config;
    }

    /** ParameterStatus values reported by the server so far (server_version, TimeZone, ...). */
    public Map<String, String> parameters() {
        return handler.parameters();
    }

    /** e.g. 170006 for 17.6, 100023 for 10.23. */
    public int serverVersionNum() {
        return handler.serverVersionNum();
    }

    public int serverMajor() {
        return serverVersionNum() / 10000;
    }

    /** The backend's process id from BackendKeyData, or 0 if the server sent none. */
    public int backendPid() {
        return keyData == null ? 0 : keyData.processId();
    }

    /** The protocol version in force: the one requested, or the older one the server negotiated down to. */
    public ProtocolVersion protocolVersion() {
        return protocolVersion;
    }

    /** {@code _pq_.} startup options the server reported it does not know (it carries on without them). */
    public List<String> unsupportedProtocolOptions() {
        return unsupportedProtocolOptions;
    }

    /** Length of the cancel key the server sent (4 under 3.0; PG18 sends 32 under 3.2), 0 if none. */
    public int cancelKeyLength() {
        return keyData == null ? 0 : keyData.secretKey().length;
    }

    /** True when authentication used SCRAM-SHA-256-PLUS: the server proved it holds the certificate's key. */
    public boolean isChannelBound() {
        return channelBound;
    }

    public boolean isTls() {
        return serverCertificate != null;
    }

    /** The server's leaf certificate when the connection is encrypted. */
    public Optional<X509Certificate> serverCertificate() {
        return Optional.ofNullable(serverCertificate);
    }

    public boolean isOpen() {
        return channel.isOpen() && !handler.isClosed();
    }

    /** Called for each NoticeResponse (also during copy). Default: logged at INFO. */
    public void onNotice(Consumer<ErrorFields> listener) {
        handler.noticeListener(listener);
    }

    /** The event loop this connection runs on. */
    public io.netty.channel.EventLoop eventLoop() {
        return channel.eventLoop();
    }

    // ---- commands

    /** Queues a custom exchange (the streaming layer's hook). */
    public void submit(Exchange exchange) {
        handler.submit(exchange);
    }

    /** Runs a simple query (possibly several statements); one {@link QueryResult} per statement. */
    public CompletionStage<List<QueryResult>> simpleQuery(String sql) {
        try {
            WalSenderCommands.requireFor(config.replication(), sql); // before sending: say which parameter is missing
        } catch (PgClientException e) {
            return CompletableFuture.failedFuture(e);
        }
        SimpleQueryExchange q = new SimpleQueryExchange(sql);
        handler.submit(q);
        return q.future();
    }

    /** The result of the last statement of {@code sql}. */
    public CompletionStage<QueryResult> query(String sql) {
        return simpleQuery(sql).thenApply(l -> l.isEmpty() ? new QueryResult(List.of(), List.of(), null) : l.get(l.size() - 1));
    }

    /**
     * Asks the server to cancel the command in progress: CancelRequest over a second connection,
     * secured the same way as this one. Completes when the server has closed that connection
     * (it never answers); whether anything was cancelled is seen on this connection.
     */
    public CompletionStage<Void> cancel() {
        if (keyData == null) {
            return CompletableFuture.failedFuture(new PgClientException(PgClientException.Kind.UNSUPPORTED_BY_SERVER,
                    "server sent no BackendKeyData; cannot cancel"));
        }
        try {
            return Connector.cancel(config, plan, keyData.processId(), keyData.secretKey());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Sends Terminate and closes at once; commands still queued fail with a "connection closed"
     * {@link PgClientException}. Does not wait (see {@link #closeAsync()}).
     */
    @Override
    public void close() {
        closeAsync();
    }

    /** Like {@link #close()}; completes when the socket is closed. */
    public CompletionStage<Void> closeAsync() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        channel.closeFuture().addListener(f -> done.complete(null));
        if (channel.isActive()) {
            channel.writeAndFlush(Frontend.terminate(channel.alloc())).addListener(f -> channel.close());
        } else {
            channel.close();
        }
        return done;
    }

    // ---- replication commands (walsender)

    /** IDENTIFY_SYSTEM (replication connections). */
    public CompletionStage<IdentifySystem> identifySystem() {
        return query("IDENTIFY_SYSTEM").thenApply(ReplicationCommands::identifySystem);
    }

    /** SHOW name on a replication connection (any SQL connection too): the setting's text value. */
    public CompletionStage<String> show(String name) {
        return ReplicationCommands.checked(() -> "SHOW " + ReplicationCommands.settingName(name))
                .thenCompose(this::query).thenApply(r -> r.singleRow().get(0));
    }

    /** TIMELINE_HISTORY tli: the history file name and its raw bytes. */
    public CompletionStage<TimelineHistory> timelineHistory(long timeline) {
        return ReplicationCommands.checked(() -> ReplicationCommands.timelineHistory(timeline))
                .thenCompose(this::query).thenApply(ReplicationCommands::timelineHistory);
    }

    /** CREATE_REPLICATION_SLOT, in the syntax this server version takes; unsupported options fail before sending. */
    public CompletionStage<SlotCreated> createReplicationSlot(CreateSlotOptions options) {
        return ReplicationCommands.checked(() -> {
                    WalSenderCommands.require(config.replication(), "CREATE_REPLICATION_SLOT", options.logical());
                    return ReplicationCommands.createSlot(options, serverVersionNum());
                })
                .thenCompose(this::query).thenApply(ReplicationCommands::slotCreated);
    }

    /** READ_REPLICATION_SLOT (PG15+, physical slots); empty if the slot does not exist. */
    public CompletionStage<Optional<ReplicationSlotStatus>> readReplicationSlot(String slotName) {
        return ReplicationCommands.checked(() -> ReplicationCommands.readSlot(slotName, serverVersionNum()))
                .thenCompose(this::query).thenApply(ReplicationCommands::readSlot);
    }

    /** ALTER_REPLICATION_SLOT (PG17+: failover; PG18+: two_phase). A null option is left unchanged. */
    public CompletionStage<Void> alterReplicationSlot(String slotName, Boolean failover, Boolean twoPhase) {
        return ReplicationCommands.checked(() -> ReplicationCommands.alterSlot(slotName, failover, twoPhase, serverVersionNum()))
                .thenCompose(this::query).thenApply(r -> null);
    }

    /** DROP_REPLICATION_SLOT [WAIT]. Without wait an active slot fails with 55006. */
    public CompletionStage<Void> dropReplicationSlot(String slotName, boolean wait) {
        return ReplicationCommands.checked(() -> ReplicationCommands.dropSlot(slotName, wait))
                .thenCompose(this::query).thenApply(r -> null);
    }

    // ---- streaming (io.pgrepl.client.stream)

    /**
     * START_REPLICATION ... LOGICAL on this (replication=database) connection. Options are
     * validated against the server version first (throws PgClientException); the stream's
     * {@code started()} completes on CopyBothResponse.
     */
    public io.pgrepl.client.stream.LogicalReplicationStream startLogical(
            io.pgrepl.client.stream.LogicalReplicationOptions options, io.pgrepl.client.stream.LogicalStreamHandler handler) {
        return io.pgrepl.client.stream.LogicalReplicationStream.start(this, options, handler);
    }

    /** START_REPLICATION ... PHYSICAL on this (replication=true) connection. */
    public io.pgrepl.client.stream.PhysicalReplicationStream startPhysical(
            io.pgrepl.client.stream.PhysicalReplicationOptions options, io.pgrepl.client.stream.PhysicalStreamHandler handler) {
        return io.pgrepl.client.stream.PhysicalReplicationStream.start(this, options, handler);
    }

    // ---- publications (SQL; normal or replication=database connections)

    public CompletionStage<Void> createPublication(PublicationSpec spec) {
        return ReplicationCommands.checked(() -> spec.createSql(serverVersionNum())).thenCompose(this::query).thenApply(r -> null);
    }

    /** Replaces the table list and/or options of an existing publication. */
    public CompletionStage<Void> alterPublication(PublicationSpec spec) {
        return ReplicationCommands.checked(() -> spec.alterSql(serverVersionNum())).thenCompose(this::simpleQuery).thenApply(r -> null);
    }

    public CompletionStage<Void> dropPublication(String name, boolean ifExists) {
        return ReplicationCommands.checked(() -> PublicationSpec.dropSql(name, ifExists)).thenCompose(this::query).thenApply(r -> null);
    }

    /** Publication names in the current database. */
    public CompletionStage<List<String>> listPublications() {
        return query("SELECT pubname FROM pg_catalog.pg_publication ORDER BY pubname")
                .thenApply(r -> r.rows().stream().map(row -> row.get(0)).toList());
    }

    @Override
    public String toString() {
        return "PgConnection{" + config.host() + ":" + config.port() + ", user=" + config.user() + ", pid=" + backendPid()
                + ", tls=" + isTls() + ", protocol=" + protocolVersion + ", server=" + parameters().getOrDefault("server_version", "?") + "}";
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
