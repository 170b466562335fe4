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
 * The values of libpq's connection parameters (and the client's own few), with their defaults:
 * what {@link ConnectionConfig.Builder} writes and {@link ConnectionConfig} reads. The list of
 * settings, their defaults, the copying between builder and configuration, and the checks that
 * span several settings live here once, so the public classes hold only their documented faces.
 * A configuration's copy is {@link #resolved()} and never changed after.
 */
final class ConnectionParameters {
    String host = "localhost";
    List<HostSpec> hosts;
    TargetSessionAttrs targetSessionAttrs = TargetSessionAttrs.ANY;
    LoadBalanceHosts loadBalanceHosts = LoadBalanceHosts.DISABLE;
    String hostAddress;
    int port = 5432;
    String database;
    String user = System.getProperty("user.name");
    String password;
    Path passFile;
    SslMode sslMode = SslMode.PREFER;
    Path sslRootCert;
    Path sslCert;
    Path sslKey;
    String sslPassword;
    boolean sslSni = true;
    SslNegotiation sslNegotiation = SslNegotiation.POSTGRES;
    String channelBinding = "prefer";
    String requireAuth;
    OAuthBearerTokenSource oauthTokenSource;
    String applicationName = "pgrepl";
    ReplicationMode replication = ReplicationMode.NONE;
    Duration connectTimeout = Duration.ofSeconds(30);
    ProtocolVersion minProtocolVersion = ProtocolVersion.V3_0;
    /** As asked for; null: libpq's default (see {@link #resolvedMaxProtocolVersion()}). */
    ProtocolVersion maxProtocolVersion;
    Map<String, String> startupParameters = new LinkedHashMap<>();
    int maxFrameSize = BackendFrameDecoder.DEFAULT_MAX_FRAME_SIZE;
    EventLoopGroup eventLoopGroup;

    /** {@return a copy the builder may change: the host list only when it names several servers} */
    ConnectionParameters forBuilder() {
        ConnectionParameters c = copy();
        c.hosts = hosts.size() > 1 ? hosts : null;
        return c;
    }

    /**
     * {@return a copy with libpq's defaults resolved (the host list, the database), checked}
     *
     * @throws IllegalArgumentException as {@link ConnectionConfig.Builder#build()} says
     */
    ConnectionParameters resolved() {
        if (port < 1 || port > 65535) throw new IllegalArgumentException("invalid port number: " + port);
        ConnectionParameters r = copy();
        r.hosts = hosts != null ? hosts : List.of(new HostSpec(Objects.requireNonNull(host, "host"), hostAddress, port));
        r.host = r.hosts.get(0).host();
        r.hostAddress = r.hosts.get(0).hostAddress();
        r.port = r.hosts.get(0).port();
        r.user = Objects.requireNonNull(user, "user");
        r.database = database != null ? database : user;
        r.startupParameters = Collections.unmodifiableMap(new LinkedHashMap<>(startupParameters));
        if (sslNegotiation == SslNegotiation.DIRECT && !sslMode.requiresEncryption()) {
            throw new IllegalArgumentException("sslnegotiation=direct requires sslmode require, verify-ca or verify-full");
        }
        ProtocolVersion max = resolvedMaxProtocolVersion();
        if (minProtocolVersion.compareTo(max) > 0) {
            throw new IllegalArgumentException("min_protocol_version " + minProtocolVersion + " is greater than max_protocol_version " + max);
        }
        if ((sslCert == null) != (sslKey == null)) {
            throw new IllegalArgumentException("sslcert and sslkey must be given together");
        }
        return r;
    }

    /** {@return max_protocol_version: as asked, else libpq 18's 3.0, except that a higher minimum implies the latest} */
    ProtocolVersion resolvedMaxProtocolVersion() {
        if (maxProtocolVersion != null) return maxProtocolVersion;
        return minProtocolVersion.compareTo(ProtocolVersion.V3_0) > 0 ? ProtocolVersion.LATEST : ProtocolVersion.V3_0;
    }

    private ConnectionParameters copy() {
        ConnectionParameters c = new ConnectionParameters();
        c.host = host;
        c.hosts = hosts;
        c.targetSessionAttrs = targetSessionAttrs;
        c.loadBalanceHosts = loadBalanceHosts;
        c.hostAddress = hostAddress;
        c.port = port;
        c.database = database;
        c.user = user;
        c.password = password;
        c.passFile = passFile;
        c.sslMode = sslMode;
        c.sslRootCert = sslRootCert;
        c.sslCert = sslCert;
        c.sslKey = sslKey;
        c.sslPassword = sslPassword;
        c.sslSni = sslSni;
        c.sslNegotiation = sslNegotiation;
        c.channelBinding = channelBinding;
        c.requireAuth = requireAuth;
        c.oauthTokenSource = oauthTokenSource;
        c.applicationName = applicationName;
        c.replication = replication;
        c.connectTimeout = connectTimeout;
        c.minProtocolVersion = minProtocolVersion;
        c.maxProtocolVersion = maxProtocolVersion;
        c.maxFrameSize = maxFrameSize;
        c.eventLoopGroup = eventLoopGroup;
        c.startupParameters = new LinkedHashMap<>(startupParameters);
        return c;
    }
}
