package io.pgrepl.client;

import io.netty.channel.EventLoopGroup;
import io.pgrepl.client.auth.OAuthBearerTokenSource;
import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.config.TargetSessionAttrs;
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

    /** The settings, defaults resolved and checked; this config's own copy, never changed. */
    private final ConnectionParameters p;

    private ConnectionConfig(Builder b) {
        this.p = b.p.resolved();
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
        return new Builder(p.forBuilder());
    }

    /** {@return the servers to try, in order (one unless a host list was given)} */
    public List<HostSpec> hosts() { return p.hosts; }
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
    public TargetSessionAttrs targetSessionAttrs() { return p.targetSessionAttrs; }
    /** {@return libpq load_balance_hosts: try {@link #hosts()} in order (default) or shuffled} */
    public LoadBalanceHosts loadBalanceHosts() { return p.loadBalanceHosts; }
    /** {@return libpq host: the first server's name (the only one unless a host list was given)} */
    public String host() { return p.host; }
    /**
     * {@return libpq hostaddr: the IP to connect to instead of resolving {@link #host()}, which still names the server for TLS; or null}
     */
    public String hostAddress() { return p.hostAddress; }
    /** {@return libpq port: the first server's TCP port (default 5432)} */
    public int port() { return p.port; }
    /** {@return libpq dbname: the database to connect to (defaults to the user name)} */
    public String database() { return p.database; }
    /** {@return libpq user: the role to connect as (defaults to the OS user)} */
    public String user() { return p.user; }
    /** {@return the explicitly configured password (URL or builder), or null; not the resolved one} */
    public String password() { return p.password; }
    /** {@return libpq passfile: the password file, or null for {@code PGPASSFILE}, else {@code ~/.pgpass}} */
    public Path passFile() { return p.passFile; }
    /** {@return libpq sslmode: whether TLS is used and what is verified (default prefer)} */
    public SslMode sslMode() { return p.sslMode; }
    /**
     * {@return libpq sslrootcert: the CA certificates to trust, {@code system} for the JDK's, or null for {@code ~/.postgresql/root.crt}}
     */
    public Path sslRootCert() { return p.sslRootCert; }
    /** {@return libpq sslcert: the client certificate (PEM), or null for {@code ~/.postgresql/postgresql.crt} if present} */
    public Path sslCert() { return p.sslCert; }
    /** {@return libpq sslkey: the client certificate's private key (PEM), or null} */
    public Path sslKey() { return p.sslKey; }
    /** {@return libpq sslpassword: decrypts an encrypted PKCS#8 {@link #sslKey()}; null when the key is not encrypted} */
    public String sslPassword() { return p.sslPassword; }
    /** {@return libpq sslsni: whether the host name is sent in the TLS handshake (default true)} */
    public boolean sslSni() { return p.sslSni; }
    /** {@return libpq sslnegotiation: SSLRequest first (default) or direct TLS (PostgreSQL 17+)} */
    public SslNegotiation sslNegotiation() { return p.sslNegotiation; }
    /** {@return libpq channel_binding keyword: disable, prefer (default) or require} */
    public String channelBinding() { return p.channelBinding; }
    /** {@return libpq require_auth list, or null for no restriction} */
    public String requireAuth() { return p.requireAuth; }
    /** {@return where OAuth bearer tokens come from (PostgreSQL 18 {@code oauth}), or null} */
    public OAuthBearerTokenSource oauthTokenSource() { return p.oauthTokenSource; }
    /** {@return libpq application_name, shown in pg_stat_activity and pg_stat_replication (default pgrepl)} */
    public String applicationName() { return p.applicationName; }
    /** {@return libpq replication: a plain session (default), a physical or a logical walsender} */
    public ReplicationMode replication() { return p.replication; }
    /** {@return libpq connect_timeout: the limit for one server to connect, negotiate TLS and authenticate (default 30 s)} */
    public Duration connectTimeout() { return p.connectTimeout; }
    /** {@return libpq 18 min_protocol_version: the connection fails if the server cannot speak at least this (default 3.0)} */
    public ProtocolVersion minProtocolVersion() { return p.minProtocolVersion; }
    /**
     * {@return libpq 18 max_protocol_version: the version requested in the StartupMessage (default 3.0, 3.2 if the minimum is 3.2)}
     */
    public ProtocolVersion maxProtocolVersion() { return p.resolvedMaxProtocolVersion(); }
    /** {@return extra startup parameters (GUCs), applied over {@link #DEFAULT_STARTUP_PARAMETERS}} */
    public Map<String, String> startupParameters() { return p.startupParameters; }
    /** {@return the largest backend frame accepted, in bytes (see {@link Builder#maxFrameSize(int)})} */
    public int maxFrameSize() { return p.maxFrameSize; }
    /** {@return the event loop group to borrow, or null for the shared default one} */
    public EventLoopGroup eventLoopGroup() { return p.eventLoopGroup; }

    @Override
    public String toString() {
        String where = p.hosts.size() == 1
                ? "host=" + p.host + (p.hostAddress == null ? "" : ", hostaddr=" + p.hostAddress) + ", port=" + p.port
                : "hosts=" + p.hosts + ", target_session_attrs=" + p.targetSessionAttrs.keyword()
                        + ", load_balance_hosts=" + p.loadBalanceHosts.keyword();
        return "ConnectionConfig{" + where + ", database=" + p.database + ", user=" + p.user
                + ", password=" + (p.password == null ? "<unset>" : "<redacted>") + ", sslmode=" + p.sslMode.keyword()
                + ", sslnegotiation=" + p.sslNegotiation.name().toLowerCase(java.util.Locale.ROOT)
                + ", sslrootcert=" + p.sslRootCert + ", sslcert=" + p.sslCert
                + (p.sslPassword == null ? "" : ", sslpassword=<redacted>") + ", sslsni=" + (p.sslSni ? 1 : 0)
                + ", channel_binding=" + p.channelBinding + ", require_auth=" + p.requireAuth
                + (p.oauthTokenSource == null ? "" : ", oauth=<token source>")
                + ", application_name=" + p.applicationName + ", replication=" + p.replication
                + ", connect_timeout=" + p.connectTimeout.toSeconds() + "s, protocol=" + p.minProtocolVersion + ".." + p.resolvedMaxProtocolVersion()
                + ", maxFrameSize=" + p.maxFrameSize + "}";
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
        private final ConnectionParameters p;

        private Builder() {
            this(new ConnectionParameters());
        }

        private Builder(ConnectionParameters p) {
            this.p = p;
        }

        /**
         * libpq host: one server; replaces a list given with {@link #hosts(List)}. Default localhost.
         *
         * @param v the host name (also used for TLS verification, SNI and the password file)
         * @return this builder
         */
        public Builder host(String v) { p.host = v; p.hosts = null; return this; }
        /**
         * libpq hostaddr: one server's numeric address; replaces a list given with {@link #hosts(List)}.
         *
         * @param v the IP address to connect to, or null to resolve the host name
         * @return this builder
         */
        public Builder hostAddress(String v) { p.hostAddress = v; p.hosts = null; return this; }
        /**
         * libpq port: one server's port; replaces a list given with {@link #hosts(List)}. Default 5432.
         *
         * @param v the TCP port, 1 to 65535 (checked by {@link #build()})
         * @return this builder
         */
        public Builder port(int v) { p.port = v; p.hosts = null; return this; }

        /**
         * Several servers, tried in turn (libpq's comma-separated host/hostaddr/port lists).
         *
         * @param v the servers, at least one
         * @return this builder
         * @throws IllegalArgumentException if the list is empty
         */
        public Builder hosts(List<HostSpec> v) {
            if (v.isEmpty()) throw new IllegalArgumentException("at least one host is needed");
            p.hosts = List.copyOf(v);
            p.host = p.hosts.get(0).host();
            p.hostAddress = p.hosts.get(0).hostAddress();
            p.port = p.hosts.get(0).port();
            return this;
        }

        /**
         * libpq target_session_attrs: which of the servers is acceptable. Default any.
         *
         * @param v the required session kind
         * @return this builder
         */
        public Builder targetSessionAttrs(TargetSessionAttrs v) { p.targetSessionAttrs = Objects.requireNonNull(v); return this; }
        /**
         * libpq load_balance_hosts: whether the servers are tried in order (disable, the default) or shuffled (random).
         *
         * @param v the order
         * @return this builder
         */
        public Builder loadBalanceHosts(LoadBalanceHosts v) { p.loadBalanceHosts = Objects.requireNonNull(v); return this; }
        /**
         * libpq dbname; null (the default) means the user name. A physical walsender ignores it.
         *
         * @param v the database name
         * @return this builder
         */
        public Builder database(String v) { p.database = v; return this; }
        /**
         * libpq user; defaults to the OS user ({@code user.name}).
         *
         * @param v the role name
         * @return this builder
         */
        public Builder user(String v) { p.user = v; return this; }
        /**
         * libpq password; wins over {@code PGPASSWORD} and the password file. Never printed.
         *
         * @param v the password, or null to look it up at connect time
         * @return this builder
         */
        public Builder password(String v) { p.password = v; return this; }
        /**
         * libpq passfile; null (the default) means {@code PGPASSFILE}, else {@code ~/.pgpass}.
         *
         * @param v the password file
         * @return this builder
         */
        public Builder passFile(Path v) { p.passFile = v; return this; }
        /**
         * libpq sslmode: disable, allow, prefer (the default), require, verify-ca or verify-full.
         *
         * @param v the mode
         * @return this builder
         */
        public Builder sslMode(SslMode v) { p.sslMode = Objects.requireNonNull(v); return this; }
        /**
         * libpq sslrootcert: the trusted CA certificates (PEM); the path {@code system} means the JDK's trust store; null (the default) means {@code ~/.postgresql/root.crt}.
         *
         * @param v the file
         * @return this builder
         */
        public Builder sslRootCert(Path v) { p.sslRootCert = v; return this; }
        /**
         * libpq sslcert: the client certificate (PEM); must be given with {@link #sslKey(Path)}.
         *
         * @param v the file, or null
         * @return this builder
         */
        public Builder sslCert(Path v) { p.sslCert = v; return this; }
        /**
         * libpq sslkey: the client certificate's private key (PEM).
         *
         * @param v the file, or null
         * @return this builder
         */
        public Builder sslKey(Path v) { p.sslKey = v; return this; }
        /**
         * libpq sslpassword: decrypts an encrypted PKCS#8 key. Never printed.
         *
         * @param v the passphrase, or null
         * @return this builder
         */
        public Builder sslPassword(String v) { p.sslPassword = v; return this; }
        /**
         * libpq sslsni: send the host name in the TLS handshake (default true).
         *
         * @param v whether to send SNI
         * @return this builder
         */
        public Builder sslSni(boolean v) { p.sslSni = v; return this; }
        /**
         * libpq sslnegotiation: postgres (SSLRequest first, the default) or direct (TLS at once, PostgreSQL 17+; needs an sslmode that requires encryption).
         *
         * @param v the negotiation
         * @return this builder
         */
        public Builder sslNegotiation(SslNegotiation v) { p.sslNegotiation = Objects.requireNonNull(v); return this; }

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
            p.channelBinding = v;
            return this;
        }

        /**
         * libpq require_auth: the authentication methods the server may ask for, e.g. {@code scram-sha-256} or {@code !password}.
         *
         * @param v the comma-separated list, or null (the default) for any
         * @return this builder
         */
        public Builder requireAuth(String v) { p.requireAuth = v; return this; }
        /**
         * Where OAuth bearer tokens come from when a PostgreSQL 18 server asks for {@code oauth}:
         * asked once per connection attempt (so reconnects get a fresh token), never printed.
         *
         * @param v the source, or null for none
         * @return this builder
         */
        public Builder oauthTokenSource(OAuthBearerTokenSource v) { p.oauthTokenSource = v; return this; }
        /**
         * A blocking OAuth token supplier, run off the event loop; see {@link #oauthTokenSource}.
         *
         * @param v returns the current bearer token
         * @return this builder
         */
        public Builder oauthToken(java.util.function.Supplier<String> v) {
            p.oauthTokenSource = v == null ? null : OAuthBearerTokenSource.ofSupplier(v);
            return this;
        }
        /**
         * libpq application_name, reported in pg_stat_activity and pg_stat_replication. Default pgrepl.
         *
         * @param v the name
         * @return this builder
         */
        public Builder applicationName(String v) { p.applicationName = v; return this; }
        /**
         * libpq replication: a plain session (the default), a physical walsender or a logical walsender (replication=database).
         *
         * @param v the mode
         * @return this builder
         */
        public Builder replication(ReplicationMode v) { p.replication = Objects.requireNonNull(v); return this; }
        /**
         * libpq connect_timeout: the limit for one server to connect, negotiate TLS and authenticate. Default 30 s.
         *
         * @param v the limit
         * @return this builder
         */
        public Builder connectTimeout(Duration v) { p.connectTimeout = Objects.requireNonNull(v); return this; }
        /**
         * libpq 18 min_protocol_version: fail if the server cannot speak at least this. Default 3.0.
         *
         * @param v the lowest acceptable version
         * @return this builder
         */
        public Builder minProtocolVersion(ProtocolVersion v) { p.minProtocolVersion = Objects.requireNonNull(v); return this; }
        /**
         * libpq 18 max_protocol_version; null restores the default (3.0, or the latest when the minimum is higher).
         *
         * @param v the version to request, or null
         * @return this builder
         */
        public Builder maxProtocolVersion(ProtocolVersion v) { p.maxProtocolVersion = v; return this; }

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
            p.startupParameters.put(name, value);
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
            p.maxFrameSize = v;
            return this;
        }

        /**
         * The Netty event loop group to run connections on, owned (and shut down) by the caller.
         *
         * @param v the group, or null (the default) for the shared one
         * @return this builder
         */
        public Builder eventLoopGroup(EventLoopGroup v) { p.eventLoopGroup = v; return this; }

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
