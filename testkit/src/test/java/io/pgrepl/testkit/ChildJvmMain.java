package io.pgrepl.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Entry point of the child JVMs started by {@link ChildJvmTest}. {@code race}: prepare the
 * binaries and template of the default major. {@code server}: start, probe and close a server.
 */
public final class ChildJvmMain {
    private ChildJvmMain() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "race" -> {
                PgBinaries.Installation pg = PgBinaries.install(PgVersions.defaultVersion());
                Path template = ClusterTemplate.dataDir(pg);
                System.out.println("HOME=" + pg.home());
                System.out.println("TEMPLATE=" + template);
            }
            case "server" -> {
                System.out.println("ROOT=" + ServerUser.isRoot());
                Path dir;
                try (PgServer server = PgServer.builder().auth(AuthMethod.MD5).tls(TlsOptions.ecdsaSha384()).start()) {
                    WireProbe.Result r = WireProbe.as(server.replicationUser()).tls(server.tls().orElseThrow())
                            .run(server);
                    System.out.println("AUTH=" + r.authRequests() + " READY=" + r.readyForQuery());
                    long pid = ((EmbeddedPgServer) server).postmasterPid().orElseThrow();
                    System.out.println("POSTMASTER_OWNER=" + Files.getOwner(Path.of("/proc", Long.toString(pid)))
                            .getName());
                    dir = ((EmbeddedPgServer) server).serverDir();
                }
                System.out.println("DIR_GONE=" + !Files.exists(dir));
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
