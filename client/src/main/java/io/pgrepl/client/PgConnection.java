package io.pgrepl.client;

import io.netty.channel.Channel;
import io.pgrepl.client.internal.ConnectionHandler;
import io.pgrepl.client.internal.Exchange;
import io.pgrepl.client.internal.SimpleQueryExchange;
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
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

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

    /**
     * Opens a connection: TCP, TLS as {@code sslmode} says, startup and authentication.
     *
     * @param config the connection settings
     * @return completes with the open connection, or fails with {@link PgException}
     *         (the server refused) or {@link PgClientException} (client side)
     */
    public static CompletionStage<PgConnection> connect(ConnectionConfig config) {
        try {
            return Connector.connect(config, cfg -> cert -> Connector.authSession(cfg, cert));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Parses a libpq URI or conninfo string and connects.
     *
     * @param urlOrConninfo e.g. {@code postgresql://repl_user@host/app?replication=database}
     * @return as {@link #connect(ConnectionConfig)}; also fails with the parse error
     */
    public static CompletionStage<PgConnection> connect(String urlOrConninfo) {
        try {
            return connect(ConnectionConfig.parse(urlOrConninfo));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ---- state

    /**
     * The settings this connection was opened with.
     *
     * @return the configuration (its password is never printed)
     */
    public ConnectionConfig config() {
        return config;
    }

    /**
     * The server this connection reached: with several hosts configured, the one that was accepted.
     *
     * @return host, address and port of that server
     */
    public io.pgrepl.client.config.HostSpec server() {
        return config.hosts().get(0);
    }

    /**
     * ParameterStatus values reported by the server so far (server_version, TimeZone, ...).
     *
     * @return parameter name to value
     */
    public Map<String, String> parameters() {
        return handler.parameters();
    }

    /**
     * The server version as a number.
     *
     * @return e.g. 170006 for 17.6, 100023 for 10.23
     */
    public int serverVersionNum() {
        return handler.serverVersionNum();
    }

    /**
     * The server's major version.
     *
     * @return e.g. 17
     */
    public int serverMajor() {
        return serverVersionNum() / 10000;
    }

    /**
     * The backend's process id from BackendKeyData.
     *
     * @return the pid, or 0 if the server sent none
     */
    public int backendPid() {
        return keyData == null ? 0 : keyData.processId();
    }

    /**
     * The protocol version in force: the one requested, or the older one the server negotiated down to.
     *
     * @return 3.0 or 3.2
     */
    public ProtocolVersion protocolVersion() {
        return protocolVersion;
    }

    /**
     * {@code _pq_.} startup options the server reported it does not know (it carries on without them).
     *
     * @return the option names, usually empty
     */
    public List<String> unsupportedProtocolOptions() {
        return unsupportedProtocolOptions;
    }

    /**
     * Length of the cancel key the server sent.
     *
     * @return 4 under 3.0 (PG18 sends 32 under 3.2), 0 if none
     */
    public int cancelKeyLength() {
        return keyData == null ? 0 : keyData.secretKey().length;
    }

    /**
     * Whether authentication used SCRAM-SHA-256-PLUS: the server proved it holds the certificate's key.
     *
     * @return true when channel binding was used
     */
    public boolean isChannelBound() {
        return channelBound;
    }

    /**
     * Whether the connection is encrypted.
     *
     * @return true under TLS
     */
    public boolean isTls() {
        return serverCertificate != null;
    }

    /**
     * The server's leaf certificate when the connection is encrypted.
     *
     * @return the certificate, or empty without TLS
     */
    public Optional<X509Certificate> serverCertificate() {
        return Optional.ofNullable(serverCertificate);
    }

    /**
     * Whether the connection can still take commands.
     *
     * @return false once closed or lost
     */
    public boolean isOpen() {
        return channel.isOpen() && !handler.isClosed();
    }

    /**
     * Sets the listener called for each NoticeResponse (also during copy). Default: logged at INFO.
     *
     * @param listener called on the event loop; must not block
     */
    public void onNotice(Consumer<ErrorFields> listener) {
        handler.noticeListener(listener);
    }

    /**
     * The event loop this connection runs on.
     *
     * @return the loop; never block it
     */
    public io.netty.channel.EventLoop eventLoop() {
        return channel.eventLoop();
    }

    // ---- commands

    /**
     * Not API: queues an exchange of the client's own layers (streaming, snapshot). Public only
     * because those live in other packages; {@code Exchange} is internal and may change without
     * notice.
     *
     * @param exchange runs when the exchanges before it have finished
     */
    public void submit(Exchange exchange) {
        handler.submit(exchange);
    }

    /**
     * Runs a simple query (possibly several statements).
     *
     * @param sql one or more statements; a replication command is refused here, before sending, unless
     *            this is a replication connection
     * @return one {@link QueryResult} per statement; fails with {@link PgException} on a server error
     */
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

    /**
     * The result of the last statement of {@code sql}.
     *
     * @param sql one or more statements
     * @return the last statement's result
     */
    public CompletionStage<QueryResult> query(String sql) {
        return simpleQuery(sql).thenApply(l -> l.isEmpty() ? new QueryResult(List.of(), List.of(), null) : l.get(l.size() - 1));
    }

    /**
     * Asks the server to cancel the command in progress: CancelRequest over a second connection,
     * secured the same way as this one.
     *
     * @return completes when the server has closed that connection (it never answers); whether
     *         anything was cancelled is seen on this connection
     */
    public CompletionStage<Void> cancel() {
        return Connector.cancel(config, plan, keyData);
    }

    /**
     * Sends Terminate and closes at once; commands still queued fail with a "connection closed"
     * {@link PgClientException}. Does not wait (see {@link #closeAsync()}).
     */
    @Override
    public void close() {
        closeAsync();
    }

    /**
     * Like {@link #close()}, and tells when it is done.
     *
     * @return completes when the socket is closed
     */
    public CompletionStage<Void> closeAsync() {
        return handler.terminate();
    }

    /** Builds a command (a refusal fails the stage, nothing is sent), runs it, reads its answer. */
    private <T> CompletionStage<T> command(Supplier<String> sql, Function<QueryResult, T> answer) {
        return ReplicationCommands.checked(sql).thenCompose(this::query).thenApply(answer);
    }

    // ---- replication commands (walsender)

    /**
     * IDENTIFY_SYSTEM (replication connections).
     *
     * @return system identifier, timeline, current WAL position and database
     */
    public CompletionStage<IdentifySystem> identifySystem() {
        return query("IDENTIFY_SYSTEM").thenApply(ReplicationCommands::identifySystem);
    }

    /**
     * SHOW name, on a replication connection or any SQL connection.
     *
     * @param name a setting name, e.g. {@code wal_level}
     * @return the setting's text value
     */
    public CompletionStage<String> show(String name) {
        return command(() -> "SHOW " + ReplicationCommands.settingName(name), r -> r.singleRow().get(0));
    }

    /**
     * TIMELINE_HISTORY (physical replication connections).
     *
     * @param timeline a timeline ID, 1 or more
     * @return the history file name and its raw bytes
     */
    public CompletionStage<TimelineHistory> timelineHistory(long timeline) {
        return command(() -> ReplicationCommands.timelineHistory(timeline), ReplicationCommands::timelineHistory);
    }

    /**
     * CREATE_REPLICATION_SLOT, in the syntax this server version takes; unsupported options fail before sending.
     *
     * @param options the slot's name, kind, plugin and options
     * @return the slot's name, consistent point and snapshot
     */
    public CompletionStage<SlotCreated> createReplicationSlot(CreateSlotOptions options) {
        return command(() -> {
            WalSenderCommands.require(config.replication(), "CREATE_REPLICATION_SLOT", options.logical());
            return ReplicationCommands.createSlot(options, serverVersionNum());
        }, ReplicationCommands::slotCreated);
    }

    /**
     * READ_REPLICATION_SLOT (PG15+, physical slots).
     *
     * @param slotName the slot
     * @return its type and restart position; empty if the slot does not exist
     */
    public CompletionStage<Optional<ReplicationSlotStatus>> readReplicationSlot(String slotName) {
        return command(() -> ReplicationCommands.readSlot(slotName, serverVersionNum()), ReplicationCommands::readSlot);
    }

    /**
     * ALTER_REPLICATION_SLOT (PG17+: failover; PG18+: two_phase).
     *
     * @param slotName the slot
     * @param failover  the new failover setting, or null to leave it
     * @param twoPhase  the new two_phase setting, or null to leave it
     * @return completes when altered
     */
    public CompletionStage<Void> alterReplicationSlot(String slotName, Boolean failover, Boolean twoPhase) {
        return command(() -> ReplicationCommands.alterSlot(slotName, failover, twoPhase, serverVersionNum()), r -> null);
    }

    /**
     * DROP_REPLICATION_SLOT [WAIT].
     *
     * @param slotName the slot
     * @param wait     wait for an active slot to become inactive; without it an active slot fails with 55006
     * @return completes when dropped
     */
    public CompletionStage<Void> dropReplicationSlot(String slotName, boolean wait) {
        return command(() -> ReplicationCommands.dropSlot(slotName, wait), r -> null);
    }

    // ---- streaming (io.pgrepl.client.stream)

    /**
     * START_REPLICATION ... LOGICAL on this (replication=database) connection. Options are
     * validated against the server version first (throws PgClientException); the stream's
     * {@code started()} completes on CopyBothResponse.
     *
     * @param options slot, publications and pgoutput options
     * @param handler called on the event loop for each message
     * @return the running stream
     */
    public io.pgrepl.client.stream.LogicalReplicationStream startLogical(
            io.pgrepl.client.stream.LogicalReplicationOptions options, io.pgrepl.client.stream.LogicalStreamHandler handler) {
        return io.pgrepl.client.stream.LogicalReplicationStream.start(this, options, handler);
    }

    /**
     * START_REPLICATION ... PHYSICAL on this (replication=true or database) connection.
     *
     * @param options slot, start position and timeline
     * @param handler called on the event loop with the WAL
     * @return the running stream
     */
    public io.pgrepl.client.stream.PhysicalReplicationStream startPhysical(
            io.pgrepl.client.stream.PhysicalReplicationOptions options, io.pgrepl.client.stream.PhysicalStreamHandler handler) {
        return io.pgrepl.client.stream.PhysicalReplicationStream.start(this, options, handler);
    }

    // ---- publications (SQL; normal or replication=database connections)

    /**
     * CREATE PUBLICATION, quoted correctly.
     *
     * @param spec name, tables and options
     * @return completes when created
     */
    public CompletionStage<Void> createPublication(PublicationSpec spec) {
        return command(() -> spec.createSql(serverVersionNum()), r -> null);
    }

    /**
     * Replaces the table list and/or options of an existing publication.
     *
     * @param spec name, tables and options
     * @return completes when altered
     */
    public CompletionStage<Void> alterPublication(PublicationSpec spec) {
        return ReplicationCommands.checked(() -> spec.alterSql(serverVersionNum())).thenCompose(this::simpleQuery).thenApply(r -> null);
    }

    /**
     * DROP PUBLICATION.
     *
     * @param name     the publication
     * @param ifExists no error if it does not exist
     * @return completes when dropped
     */
    public CompletionStage<Void> dropPublication(String name, boolean ifExists) {
        return command(() -> PublicationSpec.dropSql(name, ifExists), r -> null);
    }

    /**
     * Publication names in the current database.
     *
     * @return the names, sorted
     */
    public CompletionStage<List<String>> listPublications() {
        return query("SELECT pubname FROM pg_catalog.pg_publication ORDER BY pubname")
                .thenApply(r -> r.rows().stream().map(row -> row.get(0)).toList());
    }

    @Override
    public String toString() {
        return "PgConnection{" + config.host() + ":" + config.port() + ", user=" + config.user() + ", pid=" + backendPid()
                + ", tls=" + isTls() + ", protocol=" + protocolVersion + ", server=" + parameters().getOrDefault("server_version", "?") + "}";
    }
}
