package io.pgrepl.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The OS user PostgreSQL runs as. PostgreSQL refuses to run as root, so a root JVM runs every
 * server tool as the system user {@value #NAME}, created on first use; otherwise the JVM's own user.
 */
final class ServerUser {
    static final String NAME = "pgrepl";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static ServerUser instance;

    private final boolean root;
    private final List<String> prefix;
    private final UserPrincipal owner;
    private final GroupPrincipal group;

    private ServerUser(boolean root, List<String> prefix, UserPrincipal owner, GroupPrincipal group) {
        this.root = root;
        this.prefix = prefix;
        this.owner = owner;
        this.group = group;
    }

    static synchronized ServerUser get() {
        if (instance == null) {
            instance = isRoot() ? forRoot() : new ServerUser(false, List.of(), null, null);
        }
        return instance;
    }

    boolean switchesUser() {
        return root;
    }

    /** The command, run as the server user. */
    List<String> command(List<String> command) {
        List<String> full = new ArrayList<>(prefix);
        full.addAll(command);
        return full;
    }

    /** Hands a file or directory the JVM created to the server user. */
    void own(Path path) {
        if (!root) {
            return;
        }
        try {
            PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            view.setOwner(owner);
            view.setGroup(group);
        } catch (IOException e) {
            throw new IllegalStateException("cannot chown " + path + " to " + NAME, e);
        }
    }

    static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    String[] ids = line.substring(4).trim().split("\\s+");
                    return "0".equals(ids[1]); // effective uid
                }
            }
        } catch (IOException e) {
            // no /proc: fall through to the user name
        }
        return "root".equals(System.getProperty("user.name"));
    }

    private static ServerUser forRoot() {
        ensureUserExists();
        List<String> prefix;
        if (onPath("setpriv")) {
            prefix = List.of("setpriv", "--reuid=" + NAME, "--regid=" + NAME, "--clear-groups");
        } else if (onPath("runuser")) {
            prefix = List.of("runuser", "-u", NAME, "--");
        } else {
            throw new IllegalStateException("running as root needs setpriv or runuser (util-linux) to drop to "
                    + NAME);
        }
        try {
            UserPrincipalLookupService lookup = Paths.get("/").getFileSystem().getUserPrincipalLookupService();
            return new ServerUser(true, prefix, lookup.lookupPrincipalByName(NAME),
                    lookup.lookupPrincipalByGroupName(NAME));
        } catch (IOException e) {
            throw new IllegalStateException("cannot look up user/group " + NAME, e);
        }
    }

    private static void ensureUserExists() {
        for (int attempt = 0; attempt < 5; attempt++) {
            if (Processes.run(List.of("id", "-u", NAME), TIMEOUT).ok()) {
                return;
            }
            Processes.Result added = Processes.run(List.of("useradd", "--system", "--no-create-home",
                    "--user-group", "--shell", "/usr/sbin/nologin", NAME), TIMEOUT);
            // Another JVM may have created it first (exit 9), or hold the passwd lock (exit 10): re-check.
            if (added.ok() || Processes.run(List.of("id", "-u", NAME), TIMEOUT).ok()) {
                return;
            }
            try {
                Thread.sleep(200L * (attempt + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (attempt == 4) {
                throw new IllegalStateException("cannot create system user " + NAME + ": " + added.describe());
            }
        }
        throw new IllegalStateException("cannot create system user " + NAME);
    }

    static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
        try (Stream<String> dirs = Stream.concat(Stream.of(path.split(":")), Stream.of("/usr/sbin", "/sbin"))) {
            return dirs.filter(d -> !d.isEmpty()).anyMatch(d -> Files.isExecutable(Paths.get(d, tool)));
        }
    }
}
