package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes a server's PEM files: root.crt, server.crt, server.key (0600) and client-<role>.crt/.key. */
final class TlsFiles {
    private TlsFiles() {}

    static ServerTls write(Path dir, TlsOptions options, ServerUser user) {
        TestCertificates.Bundle bundle = TestCertificates.bundle(options.keyType());
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            user.own(dir);
            Path ca = write(dir.resolve("root.crt"), bundle.ca().certPem(), user);
            Path serverCert = write(dir.resolve("server.crt"), bundle.server().certPem(), user);
            // PostgreSQL refuses a key file that others can read.
            write(dir.resolve("server.key"), bundle.server().keyPem(), user);
            Map<String, ServerTls.ClientCert> clients = new LinkedHashMap<>();
            for (Map.Entry<String, TestCertificates.Issued> e : bundle.clients().entrySet()) {
                Path cert = write(dir.resolve("client-" + e.getKey() + ".crt"), e.getValue().certPem(), user);
                Path key = write(dir.resolve("client-" + e.getKey() + ".key"), e.getValue().keyPem(), user);
                clients.put(e.getKey(), new ServerTls.ClientCert(e.getKey(), cert, key, e.getValue().certificate()));
            }
            return new ServerTls(options, ca, bundle.ca().certificate(), serverCert, bundle.server().certificate(),
                    clients, PgServerSpec.REPLICATION_USER);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write TLS files to " + dir, e);
        }
    }

    private static Path write(Path file, String pem, ServerUser user) throws IOException {
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        user.own(file);
        return file;
    }
}
