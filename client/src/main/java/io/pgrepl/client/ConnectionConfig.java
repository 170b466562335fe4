package io.pgrepl.client;

import io.netty.channel.EventLoopGroup;
import io.pgrepl.client.auth.OAuthBearerTokenSource;
import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.config.TargetSessionAttrs;
import io.pgrepl.client.internal.BackendFrameDecoder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything needed to open one connection, immutable. Build it in code with {@link #builder()}
 * or from a libpq URI / key=value string with {@link #parse(String)}.
 *
 * <p>Password precedence follows libpq: the password given here (or in the URL) wins, then
 * {@code PGPASSWORD}, then the password file. Resolution happens at connect time. The password
 * never appears in {@link #toString()}.
 *
 * <p>Several servers ({@link #hosts()}) are tried in turn, as libpq does, until one accepts the
 * connection and matches {@link #targetSessionAttrs()}; {@link #host()} and {@link #port()} name the
 * first. The connection's own config ({@link PgConnection#config()}) names the server it reached.
 */
public final class ConnectionConfig {
    /** Startup GUCs the value parsers of this project rely on; callers may override each one. */
    public static final Map<String, String> DEFAULT_STARTUP_PARAMETERS = defaultStartupParameters();

    private final List<HostSpec> hosts;
    private final String host;
    private final String hostAddress;
    private final int port;
    private final TargetSessionAttrs targetSessionAttrs;
    private final LoadBalanceHosts loadBalanceHosts;
    private final String database;
    private final String user;
    private final String password;
    private final Path passFile;
    private final SslMode sslMode;
    private final Path sslRootCert;
    private final Path sslCert;
    private final Path sslKey;
    private final String sslPassword;
    private final boolean sslSni;
    private final SslNegotiation sslNegotiation;
    private final String channelBinding;
    private final String requireAuth;
    private final OAuthBearerTokenSource oauthTokenSource;
    private final String applicationName;
    private final ReplicationMode replication;
    private final Duration connectTimeout;
    private final ProtocolVersion minProtocolVersion;
    private final ProtocolVersion maxProtocolVersion;
    private final ProtocolVersion explicitMaxProtocolVersion;
    private final Map<String, String> startupParameters;
    private final int maxFrameSize;
    private final EventLoopGroup eventLoopGroup;

    private ConnectionConfig(Builder b) {
        if (b.port < 1 || b.port > 65535) throw new IllegalArgumentException("invalid port number: " + b.port);
        this.hosts = b.hosts != null ? b.hosts
                : List.of(new HostSpec(Objects.requireNonNull(b.host, "host"), b.hostAddress, b.port));
        this.host = hosts.get(0).host();
        this.hostAddress = hosts.get(0).hostAddress();
        this.port = hosts.get(0).port();
        this.targetSessionAttrs = b.targetSessionAttrs;
        this.loadBalanceHosts = b.loadBalanceHosts;
        this.user = Objects.requireNonNull(b.user, "user");
        this.database = b.database != null ? b.database : b.user;
        this.password = b.password;
        this.passFile = b.passFile;
        this.sslMode = b.sslMode;
        this.sslRootCert = b.sslRootCert;
        this.sslCert = b.sslCert;
        this.sslKey = b.sslKey;
        this.sslPassword = b.sslPassword;
        this.sslSni = b.sslSni;
        this.sslNegotiation = b.sslNegotiation;
        this.channelBinding = b.channelBinding;
        this.requireAuth = b.requireAuth;
        this.oauthTokenSource = b.oauthTokenSource;
        this.applicationName = b.applicationName;
        this.replication = b.replication;
        this.connectTimeout = b.connectTimeout;
        this.minProtocolVersion = b.minProtocolVersion;
        this.explicitMaxProtocolVersion = b.maxProtocolVersion;
        // libpq 18: 3.0 unless asked otherwise, except that a higher minimum implies the latest.
        this.maxProtocolVersion = b.maxProtocolVersion != null ? b.maxProtocolVersion
                : minProtocolVersion.compareTo(ProtocolVersion.V3_0) > 0 ? ProtocolVersion.LATEST : ProtocolVersion.V3_0;
        this.startupParameters = Collections.unmodifiableMap(new LinkedHashMap<>(b.startupParameters));
        this.maxFrameSize = b.maxFrameSize;
        this.eventLoopGroup = b.eventLoopGroup;
        if (sslNegotiation == SslNegotiation.DIRECT && !sslMode.requiresEncryption()) {
            throw new IllegalArgumentException("sslnegotiation=direct requires sslmode require, verify-ca or verify-full");
        }
        if (minProtocolVersion.compareTo(maxProtocolVersion) > 0) {
            throw new IllegalArgumentException("min_protocol_version " + minProtocolVersion
                    + " is greater than max_protocol_version " + maxProtocolVersion);
        }
        if ((sslCert == null) != (sslKey == null)) {
            throw new IllegalArgumentException("sslcert and sslkey must be given together");
        }
    }

    /**
     * Parses a {@code postgresql://} URI or a libpq key=value string (libpq keyword names).
     * Parameters the string leaves out are taken from libpq's environment variables (PGHOST,
     * PGPORT, PGUSER, PGDATABASE, PGSSLMODE, PGAPPNAME...), as libpq does.
     *
     * @param urlOrConninfo a {@code postgresql://} (or {@code postgres://}) URI or key=value pairs
     * @return the configuration, not yet connected
     * @throws IllegalArgumentException if the string is malformed or names an unknown or unsupported
     *         parameter or an invalid value
     */
    public static ConnectionConfig parse(String urlOrConninfo) {
        return parse(urlOrConninfo, System::getenv);
    }

    /**
     * Like {@link #parse(String)} with the environment looked up through {@code env} (tests, sandboxes).
     *
     * @param urlOrConninfo a {@code postgresql://} URI or key=value pairs
     * @param env           looks up a PG* variable; returns null when it is unset
     * @return the configuration, not yet connected
     */
    public static ConnectionConfig parse(String urlOrConninfo, java.util.function.Function<String, String> env) {
        return ConnInfoMapping.fromConnInfo(urlOrConninfo, env).build();
    }

    /** {@return a builder with libpq's defaults: localhost:5432, sslmode=prefer, the OS user} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these settings, to derive a changed copy} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.host = host;
        b.hostAddress = hostAddress;
        b.port = port;
        b.hosts = hosts.size() > 1 ? hosts : null;
        b.targetSessionAttrs = targetSessionAttrs;
        b.loadBalanceHosts = loadBalanceHosts;
        b.database = database;
        b.user = user;
        b.password = password;
        b.passFile = passFile;
        b.sslMode = sslMode;
        b.sslRootCert = sslRootCert;
        b.sslCert = sslCert;
        b.sslKey = sslKey;
        b.sslPassword = sslPassword;
        b.sslSni = sslSni;
        b.sslNegotiation = sslNegotiation;
        b.channelBinding = channelBinding;
        b.requireAuth = requireAuth;
        b.oauthTokenSource = oauthTokenSource;
        b.applicationName = applicationName;
        b.replication = replication;
        b.connectTimeout = connectTimeout;
        b.minProtocolVersion = minProtocolVersion;
        b.maxProtocolVersion = explicitMaxProtocolVersion;
        b.startupParameters.putAll(startupParameters);
        b.maxFrameSize = maxFrameSize;
        b.eventLoopGroup = eventLoopGroup;
        return b;
    }

    /** {@return the servers to try, in order (one unless a host list was given)} */
    public List<HostSpec> hosts() { return hosts; }
    /**
     * The same settings for one server of {@link #hosts()}.
     *
     * @param h the server to keep
     * @return a configuration naming only {@code h}
     */
    public ConnectionConfig forHost(HostSpec h) {
        return toBuilder().host(h.host()).hostAddress(h.hostAddress()).port(h.port()).build();
    }
    /** {@return libpq target_session_attrs: which server of {@link #hosts()} is acceptable (default any)} */
    public TargetSessionAttrs targetSessionAttrs() { return targetSessionAttrs; }
    /** {@return libpq load_balance_hosts: try {@link #hosts()} in order (default) or shuffled} */
    public LoadBalanceHosts loadBalanceHosts() { return loadBalanceHosts; }
    /** {@return libpq host: the first server's name (the only one unless a host list was given)} */
    public String host() { return host; }
    /**
     * {@return libpq hostaddr: the IP to connect to instead of resolving {@link #host()}, which still names the server for TLS; or null}
     */
    public String hostAddress() { return hostAddress; }
    /** {@return libpq port: the first server's TCP port (default 5432)} */
    public int port() { return port; }
    /** {@return libpq dbname: the database to connect to (defaults to the user name)} */
    public String database() { return database; }
    /** {@return libpq user: the role to connect as (defaults to the OS user)} */
    public String user() { return user; }
    /** {@return the explicitly configured password (URL or builder), or null; not the resolved one} */
    public String password() { return password; }
    /** {@return libpq passfile: the password file, or null for {@code PGPASSFILE}, else {@code ~/.pgpass}} */
    public Path passFile() { return passFile; }
    /** {@return libpq sslmode: whether TLS is used and what is verified (default prefer)} */
    public SslMode sslMode() { return sslMode; }
    /**
     * {@return libpq sslrootcert: the CA certificates to trust, {@code system} for the JDK's, or null for {@code ~/.postgresql/root.crt}}
     */
    public Path sslRootCert() { return sslRootCert; }
    /** {@return libpq sslcert: the client certificate (PEM), or null for {@code ~/.postgresql/postgresql.crt} if present} */
    public Path sslCert() { return sslCert; }
    /** {@return libpq sslkey: the client certificate's private key (PEM), or null} */
    public Path sslKey() { return sslKey; }
    /** {@return libpq sslpassword: decrypts an encrypted PKCS#8 {@link #sslKey()}; null when the key is not encrypted} */
    public String sslPassword() { return sslPassword; }
    /** {@return libpq sslsni: whether the host name is sent in the TLS handshake (default true)} */
    public boolean sslSni() { return sslSni; }
    /** {@return libpq sslnegotiation: SSLRequest first (default) or direct TLS (PostgreSQL 17+)} */
    public SslNegotiation sslNegotiation() { return sslNegotiation; }
    /** {@return libpq channel_binding keyword: disable, prefer (default) or require} */
    public String channelBinding() { return channelBinding; }
    /** {@return libpq require_auth list, or null for no restriction} */
    public String requireAuth() { return requireAuth; }
    /** {@return where OAuth bearer tokens come from (PostgreSQL 18 {@code oauth}), or null} */
    public OAuthBearerTokenSource oauthTokenSource() { return oauthTokenSource; }
    /** {@return libpq application_name, shown in pg_stat_activity and pg_stat_replication (default pgrepl)} */
    public String applicationName() { return applicationName; }
    /** {@return libpq replication: a plain session (default), a physical or a logical walsender} */
    public ReplicationMode replication() { return replication; }
    /** {@return libpq connect_timeout: the limit for one server to connect, negotiate TLS and authenticate (default 30 s)} */
    public Duration connectTimeout() { return connectTimeout; }
    /** {@return libpq 18 min_protocol_version: the connection fails if the server cannot speak at least this (default 3.0)} */
    public ProtocolVersion minProtocolVersion() { return minProtocolVersion; }
    /**
     * {@return libpq 18 max_protocol_version: the version requested in the StartupMessage (default 3.0, 3.2 if the minimum is 3.2)}
     */
    public ProtocolVersion maxProtocolVersion() { return maxProtocolVersion; }
    /** {@return extra startup parameters (GUCs), applied over {@link #DEFAULT_STARTUP_PARAMETERS}} */
    public Map<String, String> startupParameters() { return startupParameters; }
    /** {@return the largest backend frame accepted, in bytes (see {@link Builder#maxFrameSize(int)})} */
    public int maxFrameSize() { return maxFrameSize; }
    /** {@return the event loop group to borrow, or null for the shared default one} */
    public EventLoopGroup eventLoopGroup() { return eventLoopGroup; }

    @Override
    public String toString() {
        String where = hosts.size() == 1
                ? "host=" + host + (hostAddress == null ? "" : ", hostaddr=" + hostAddress) + ", port=" + port
                : "hosts=" + hosts + ", target_session_attrs=" + targetSessionAttrs.keyword()
                        + ", load_balance_hosts=" + loadBalanceHosts.keyword();
        return "ConnectionConfig{" + where + ", database=" + database + ", user=" + user
                + ", password=" + (password == null ? "<unset>" : "<redacted>") + ", sslmode=" + sslMode.keyword()
                + ", sslnegotiation=" + sslNegotiation.name().toLowerCase(java.util.Locale.ROOT)
                + ", sslrootcert=" + sslRootCert + ", sslcert=" + sslCert
                + (sslPassword == null ? "" : ", sslpassword=<redacted>") + ", sslsni=" + (sslSni ? 1 : 0)
                + ", channel_binding=" + channelBinding + ", require_auth=" + requireAuth
                + (oauthTokenSource == null ? "" : ", oauth=<token source>")
                + ", application_name=" + applicationName + ", replication=" + replication
                + ", connect_timeout=" + connectTimeout.toSeconds() + "s, protocol=" + minProtocolVersion + ".." + maxProtocolVersion
                + ", maxFrameSize=" + maxFrameSize + "}";
    }

    private static Map<String, String> defaultStartupParameters() {
        Map<String, String> m = new LinkedHashMap<>();
        // Text values are parsed assuming UTF-8, ISO dates and postgres-style intervals.
        m.put("client_encoding", "UTF8");
        m.put("DateStyle", "ISO");
        m.put("IntervalStyle", "postgres");
        // PG10/11 print floats rounded unless asked for all digits; pgoutput text uses the session value.
        m.put("extra_float_digits", "3");
        return Collections.unmodifiableMap(m);
    }

    /** Mutable builder; every setter returns {@code this}. */
    public static final class Builder {
        private String host = "localhost";
        private List<HostSpec> hosts;
        private TargetSessionAttrs targetSessionAttrs = TargetSessionAttrs.ANY;
        private LoadBalanceHosts loadBalanceHosts = LoadBalanceHosts.DISABLE;
        private String hostAddress;
        private int port = 5432;
        private String database;
        private String user = System.getProperty("user.name");
        private String password;
        private Path passFile;
        private SslMode sslMode = SslMode.PREFER;
        private Path sslRootCert;
        private Path sslCert;
        private Path sslKey;
        private String sslPassword;
        private boolean sslSni = true;
        private SslNegotiation sslNegotiation = SslNegotiation.POSTGRES;
        private String channelBinding = "prefer";
        private String requireAuth;
        private OAuthBearerTokenSource oauthTokenSource;
        private String applicationName = "pgrepl";
        private ReplicationMode replication = ReplicationMode.NONE;
        private Duration connectTimeout = Duration.ofSeconds(30);
        private ProtocolVersion minProtocolVersion = ProtocolVersion.V3_0;
        private ProtocolVersion maxProtocolVersion;
        private final Map<String, String> startupParameters = new LinkedHashMap<>();
        private int maxFrameSize = BackendFrameDecoder.DEFAULT_MAX_FRAME_SIZE;
        private EventLoopGroup eventLoopGroup;

        private Builder() {}

        /**
         * libpq host: one server; replaces a list given with {@link #hosts(List)}. Default localhost.
         *
         * @param v the host name (also used for TLS verification, SNI and the password file)
         * @return this builder
         */
        public Builder host(String v) { host = v; hosts = null; return this; }
        /**
         * libpq hostaddr: one server's numeric address; replaces a list given with {@link #hosts(List)}.
         *
         * @param v the IP address to connect to, or null to resolve the host name
         * @return this builder
         */
        public Builder hostAddress(String v) { hostAddress = v; hosts = null; return this; }
        /**
         * libpq port: one server's port; replaces a list given with {@link #hosts(List)}. Default 5432.
         *
         * @param v the TCP port, 1 to 65535 (checked by {@link #build()})
         * @return this builder
         */
        public Builder port(int v) { port = v; hosts = null; return this; }

        /**
         * Several servers, tried in turn (libpq's comma-separated host/hostaddr/port lists).
         *
         * @param v the servers, at least one
         * @return this builder
         * @throws IllegalArgumentException if the list is empty
         */
        public Builder hosts(List<HostSpec> v) {
            if (v.isEmpty()) throw new IllegalArgumentException("at least one host is needed");
            hosts = List.copyOf(v);
            host = hosts.get(0).host();
            hostAddress = hosts.get(0).hostAddress();
            port = hosts.get(0).port();
            return this;
        }

        /**
         * libpq target_session_attrs: which of the servers is acceptable. Default any.
         *
         * @param v the required session kind
         * @return this builder
         */
        public Builder targetSessionAttrs(TargetSessionAttrs v) { targetSessionAttrs = Objects.requireNonNull(v); return this; }
        /**
         * libpq load_balance_hosts: whether the servers are tried in order (disable, the default) or shuffled (random).
         *
         * @param v the order
         * @return this builder
         */
        public Builder loadBalanceHosts(LoadBalanceHosts v) { loadBalanceHosts = Objects.requireNonNull(v); return this; }
        /**
         * libpq dbname; null (the default) means the user name. A physical walsender ignores it.
         *
         * @param v the database name
         * @return this builder
         */
        public Builder database(String v) { database = v; return this; }
        /**
         * libpq user; defaults to the OS user ({@code user.name}).
         *
         * @param v the role name
         * @return this builder
         */
        public Builder user(String v) { user = v; return this; }
        /**
         * libpq password; wins over {@code PGPASSWORD} and the password file. Never printed.
         *
         * @param v the password, or null to look it up at connect time
         * @return this builder
         */
        public Builder password(String v) { password = v; return this; }
        /**
         * libpq passfile; null (the default) means {@code PGPASSFILE}, else {@code ~/.pgpass}.
         *
         * @param v the password file
         * @return this builder
         */
        public Builder passFile(Path v) { passFile = v; return this; }
        /**
         * libpq sslmode: disable, allow, prefer (the default), require, verify-ca or verify-full.
         *
         * @param v the mode
         * @return this builder
         */
        public Builder sslMode(SslMode v) { sslMode = Objects.requireNonNull(v); return this; }
        /**
         * libpq sslrootcert: the trusted CA certificates (PEM); the path {@code system} means the JDK's trust store; null (the default) means {@code ~/.postgresql/root.crt}.
         *
         * @param v the file
         * @return this builder
         */
        public Builder sslRootCert(Path v) { sslRootCert = v; return this; }
        /**
         * libpq sslcert: the client certificate (PEM); must be given with {@link #sslKey(Path)}.
         *
         * @param v the file, or null
         * @return this builder
         */
        public Builder sslCert(Path v) { sslCert = v; return this; }
        /**
         * libpq sslkey: the client certificate's private key (PEM).
         *
         * @param v the file, or null
         * @return this builder
         */
        public Builder sslKey(Path v) { sslKey = v; return this; }
        /**
         * libpq sslpassword: decrypts an encrypted PKCS#8 key. Never printed.
         *
         * @param v the passphrase, or null
         * @return this builder
         */
        public Builder sslPassword(String v) { sslPassword = v; return this; }
        /**
         * libpq sslsni: send the host name in the TLS handshake (default true).
         *
         * @param v whether to send SNI
         * @return this builder
         */
        public Builder sslSni(boolean v) { sslSni = v; return this; }
        /**
         * libpq sslnegotiation: postgres (SSLRequest first, the default) or direct (TLS at once, PostgreSQL 17+; needs an sslmode that requires encryption).
         *
         * @param v the negotiation
         * @return this builder
         */
        public Builder sslNegotiation(SslNegotiation v) { sslNegotiation = Objects.requireNonNull(v); return this; }

        /**
         * libpq channel_binding: whether SCRAM-SHA-256-PLUS binds the TLS channel.
         *
         * @param v {@code disable}, {@code prefer} (the default) or {@code require}
         * @return this builder
         * @throws IllegalArgumentException for any other value
         */
        public Builder channelBinding(String v) {
            if (!v.equals("disable") && !v.equals("prefer") && !v.equals("require")) {
                throw new IllegalArgumentException("invalid channel_binding value: \"" + v + "\"");
            }
            channelBinding = v;
            return this;
        }

        /**
         * libpq require_auth: the authentication methods the server may ask for, e.g. {@code scram-sha-256} or {@code !password}.
         *
         * @param v the comma-separated list, or null (the default) for any
         * @return this builder
         */
        public Builder requireAuth(String v) { requireAuth = v; return this; }
        /**
         * Where OAuth bearer tokens come from when a PostgreSQL 18 server asks for {@code oauth}:
         * asked once per connection attempt (so reconnects get a fresh token), never printed.
         *
         * @param v the source, or null for none
         * @return this builder
         */
        public Builder oauthTokenSource(OAuthBearerTokenSource v) { oauthTokenSource = v; return this; }
        /**
         * A blocking OAuth token supplier, run off the event loop; see {@link #oauthTokenSource}.
         *
         * @param v returns the current bearer token
         * @return this builder
         */
        public Builder oauthToken(java.util.function.Supplier<String> v) {
            oauthTokenSource = v == null ? null : OAuthBearerTokenSource.ofSupplier(v);
            return this;
        }
        /**
         * libpq application_name, reported in pg_stat_activity and pg_stat_replication. Default pgrepl.
         *
         * @param v the name
         * @return this builder
         */
        public Builder applicationName(String v) { applicationName = v; return this; }
        /**
         * libpq replication: a plain session (the default), a physical walsender or a logical walsender (replication=database).
         *
         * @param v the mode
         * @return this builder
         */
        public Builder replication(ReplicationMode v) { replication = Objects.requireNonNull(v); return this; }
        /**
         * libpq connect_timeout: the limit for one server to connect, negotiate TLS and authenticate. Default 30 s.
         *
         * @param v the limit
         * @return this builder
         */
        public Builder connectTimeout(Duration v) { connectTimeout = Objects.requireNonNull(v); return this; }
        /**
         * libpq 18 min_protocol_version: fail if the server cannot speak at least this. Default 3.0.
         *
         * @param v the lowest acceptable version
         * @return this builder
         */
        public Builder minProtocolVersion(ProtocolVersion v) { minProtocolVersion = Objects.requireNonNull(v); return this; }
        /**
         * libpq 18 max_protocol_version; null restores the default (3.0, or the latest when the minimum is higher).
         *
         * @param v the version to request, or null
         * @return this builder
         */
        public Builder maxProtocolVersion(ProtocolVersion v) { maxProtocolVersion = v; return this; }

        /**
         * Adds a startup GUC (e.g. {@code wal_sender_timeout}); overrides a default of the same name.
         *
         * @param name  the GUC name
         * @param value its value
         * @return this builder
         * @throws IllegalArgumentException for {@code user}, {@code database} or {@code replication}, which have their own options
         */
        public Builder startupParameter(String name, String value) {
            if (name.equals("user") || name.equals("database") || name.equals("replication")) {
                throw new IllegalArgumentException(name + " is set through its own option");
            }
            startupParameters.put(name, value);
            return this;
        }

        /**
         * The largest backend frame accepted (type byte, length word and payload), default 256 MiB.
         * A logical walsender sends one row change per frame, so a row bigger than this ends the
         * stream with a {@link io.pgrepl.client.stream.ReplicationProtocolException} whose cause,
         * a {@link io.pgrepl.client.protocol.FrameTooLargeException}, names the limit and the
         * frame's size; it is not retried, since the server would send the same row again. A
         * frame is buffered whole, so this also bounds the memory one message can take.
         *
         * @param v the limit in bytes, at least 1024
         * @return this builder
         * @throws IllegalArgumentException if {@code v} is below 1024
         */
        public Builder maxFrameSize(int v) {
            if (v < 1024) throw new IllegalArgumentException("maxFrameSize too small: " + v);
            maxFrameSize = v;
            return this;
        }

        /**
         * The Netty event loop group to run connections on, owned (and shut down) by the caller.
         *
         * @param v the group, or null (the default) for the shared one
         * @return this builder
         */
        public Builder eventLoopGroup(EventLoopGroup v) { eventLoopGroup = v; return this; }

        /**
         * {@return the immutable configuration}
         *
         * @throws IllegalArgumentException for an invalid port, sslnegotiation=direct without an sslmode that requires
         *         encryption, a minimum protocol version above the maximum, or only one of sslcert and sslkey
         */
        public ConnectionConfig build() {
            return new ConnectionConfig(this);
        }
    }
}
