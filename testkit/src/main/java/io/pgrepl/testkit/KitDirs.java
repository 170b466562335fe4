package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The shared cache: {@code binaries/<version>} (extracted once), {@code templates/<version>}
 * (one initdb'd cluster per version, copied per server) and {@code servers/<id>} (live servers).
 * It lives in {@code -Dpg.cache.dir}, else {@code ${java.io.tmpdir}/pgrepl-pg-<user>}, and is
 * shared by every JVM of that user: entries are built in a temp dir under a file lock and
 * published by an atomic rename, with a {@value #COMPLETE} marker.
 */
final class KitDirs {
    static final String COMPLETE = ".complete";
    private static final Set<PosixFilePermission> OPEN = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");
    private static final ConcurrentHashMap<Path, Object> JVM_LOCKS = new ConcurrentHashMap<>();
    private static Path root;

    private KitDirs() {}

    interface Builder {
        void build(Path tempDir) throws IOException;
    }

    static synchronized Path root() {
        if (root == null) {
            String configured = System.getProperty("pg.cache.dir", "").trim();
            Path dir = configured.isEmpty()
                    ? Paths.get(System.getProperty("java.io.tmpdir"), "pgrepl-pg-" + System.getProperty("user.name"))
                    : Paths.get(configured);
            dir = dir.toAbsolutePath().normalize();
            if (configured.isEmpty() && ServerUser.isRoot() && !traversableByOthers(dir.getParent())) {
                // The unprivileged server user must reach the binaries and data dirs.
                dir = Paths.get("/var/tmp", "pgrepl-pg-root");
            }
            root = openDir(dir);
        }
        return root;
    }

    static Path binaries() {
        return openDir(root().resolve("binaries"));
    }

    static Path templates() {
        return openDir(root().resolve("templates"));
    }

    static Path certificates() {
        return openDir(root().resolve("certificates"));
    }

    static Path servers() {
        return openDir(root().resolve("servers"));
    }

    /** A fresh directory for one server, owned by the server user, mode 700. */
    static Path newPrivateDir(Path parent, String prefix) throws IOException {
        Path dir = parent.resolve(prefix + "-" + UUID.randomUUID().toString().substring(0, 8));
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
        ServerUser.get().own(dir);
        return dir;
    }

    /**
     * Returns {@code parent/name}, building it first if no complete copy exists. Safe against
     * other threads and other JVMs doing the same.
     */
    static Path once(Path parent, String name, Builder builder) {
        Path target = parent.resolve(name);
        if (Files.exists(target.resolve(COMPLETE))) {
            return target;
        }
        synchronized (JVM_LOCKS.computeIfAbsent(target, k -> new Object())) {
            try (FileChannel channel = FileChannel.open(parent.resolve(name + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                if (Files.exists(target.resolve(COMPLETE))) {
                    return target;
                }
                // Holding the lock, anything half-built for this name is a crashed run's leftover.
                deleteTree(target);
                try (Stream<Path> leftovers = Files.list(parent)) {
                    for (Path p : (Iterable<Path>) leftovers::iterator) {
                        if (p.getFileName().toString().startsWith(".tmp-" + name + "-")) {
                            deleteTree(p);
                        }
                    }
                }
                Path temp = parent.resolve(".tmp-" + name + "-" + UUID.randomUUID().toString().substring(0, 8));
                Files.createDirectory(temp, PosixFilePermissions.asFileAttribute(OPEN));
                Files.setPosixFilePermissions(temp, OPEN);
                try {
                    builder.build(temp);
                    Files.createFile(temp.resolve(COMPLETE));
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException | RuntimeException e) {
                    deleteTree(temp);
                    throw e;
                }
                return target;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot prepare " + target, e);
            }
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                if (exc instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw exc;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static Path openDir(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, OPEN);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    private static boolean traversableByOthers(Path dir) {
        try {
            for (Path p = dir; p != null; p = p.getParent()) {
                if (Files.exists(p) && !Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
