package io.pgrepl.testkit;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The TLS material of a running test server. All files are PEM; keys are unencrypted PKCS#8.
 * Client certificates exist for the superuser, the replication user and the plain user
 * (CN = role name), signed by the same CA, whatever the {@link ClientCertMode}.
 */
public record ServerTls(
        TlsOptions options,
        Path caCertFile,
        X509Certificate caCertificate,
        Path serverCertFile,
        X509Certificate serverCertificate,
        Map<String, ClientCert> clientCerts,
        String replicationUserName) {

    /** A client certificate and its key for one role. */
    public record ClientCert(String user, Path certFile, Path keyFile, X509Certificate certificate) {}

    public ServerTls {
        clientCerts = Map.copyOf(clientCerts);
    }

    /** The replication user's client certificate. */
    public Path clientCertFile() {
        return clientCert(replicationUserName).certFile();
    }

    /** The replication user's client key. */
    public Path clientKeyFile() {
        return clientCert(replicationUserName).keyFile();
    }

    public ClientCert clientCert(PgUser user) {
        return clientCert(user.name());
    }

    public ClientCert clientCert(String userName) {
        ClientCert cert = clientCerts.get(userName);
        if (cert == null) {
            throw new NoSuchElementException("no client certificate for role " + userName);
        }
        return cert;
    }
}
