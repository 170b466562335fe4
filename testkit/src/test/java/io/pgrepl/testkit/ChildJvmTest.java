package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Behaviour that only shows across JVMs: the shared cache under a race, and the non-root path. */
class ChildJvmTest {

    @Test
    void twoJvmsPreparingTheSameCacheAgreeAndLeaveNoTempDirs() throws Exception {
        Path cache = openTempDir("pgrepl-race-");
        try {
            List<Process> children = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                children.add(javaProcess(classPath(), List.of("-Dpg.cache.dir=" + cache), "race", null).start());
            }
            List<String> outputs = new ArrayList<>();
            String home = null;
            for (Process p : children) {
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(5, TimeUnit.MINUTES));
                assertEquals(0, p.exitValue(), out);
                outputs.add(lines(out, "HOME=") + "\n" + lines(out, "TEMPLATE="));
                home = lines(out, "HOME=");
            }
            assertEquals(outputs.get(0), outputs.get(1));
            for (String area : List.of("binaries", "templates")) {
                try (Stream<Path> entries = Files.list(cache.resolve(area))) {
                    List<String> names = entries.map(p -> p.getFileName().toString()).sorted().toList();
                    assertTrue(names.stream().noneMatch(n -> n.startsWith(".tmp-")), names::toString);
                    assertEquals(2, names.size(), names::toString); // the entry and its lock file
                }
            }
            Path binaries = Paths.get(home);
            assertTrue(binaries.startsWith(cache), home);
            assertTrue(Files.exists(binaries.resolve(KitDirs.COMPLETE)));
            assertTrue(Files.isExecutable(binaries.resolve("bin/postgres")));
            assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(binaries)));
        } finally {
            KitDirs.deleteTree(cache);
        }
    }

    /** Root here: run a whole child JVM as the unprivileged user to exercise the direct path. */
    @Test
    void worksWhenTheJvmIsNotRoot() throws Exception {
        Assumptions.assumeTrue(ServerUser.isRoot(), "only a root JVM can start a non-root one");
        ServerUser.get(); // creates the user
        Path work = openTempDir("pgrepl-nonroot-");
        try {
            // The unprivileged user cannot read /root/.m2: copy the classpath and one binaries jar.
            List<String> copied = new ArrayList<>();
            int n = 0;
            for (String entry : classPath().split(File.pathSeparator)) {
                Path source = Paths.get(entry);
                if (!Files.exists(source)) {
                    continue;
                }
                Path target = work.resolve("cp").resolve((n++) + "-" + source.getFileName());
                copyTree(source, target);
                copied.add(target.toString());
            }
            Path binaries = work.resolve("pg-binaries");
            Files.createDirectories(binaries);
            String jarName = PgBinaries.ARTIFACT + "-" + PgVersions.BINARIES.get(PgVersions.defaultVersion()) + ".jar";
            Path jar = Paths.get(System.getProperty("pg.binaries.dir", ""), jarName);
            Assumptions.assumeTrue(Files.exists(jar), "no " + jar);
            Files.copy(jar, binaries.resolve(jarName));
            Files.createDirectories(work.resolve("tmp"));
            openUp(work);
            ProcessBuilder pb = javaProcess(String.join(File.pathSeparator, copied), List.of(
                    "-Dpg.binaries.dir=" + binaries, "-Djava.io.tmpdir=" + work.resolve("tmp"),
                    "-Duser.home=" + work), "server", List.of("setpriv", "--reuid=" + ServerUser.NAME,
                            "--regid=" + ServerUser.NAME, "--clear-groups"));
            pb.directory(work.toFile());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(5, TimeUnit.MINUTES));
            assertEquals(0, p.exitValue(), out);
            assertEquals("false", lines(out, "ROOT="), out);
            assertEquals("[5, 0] READY=true", lines(out, "AUTH="), out);
            assertEquals(ServerUser.NAME, lines(out, "POSTMASTER_OWNER="), out);
            assertEquals("true", lines(out, "DIR_GONE="), out);
        } finally {
            KitDirs.deleteTree(work);
        }
    }

    private static ProcessBuilder javaProcess(String classPath, List<String> properties, String mode,
            List<String> prefix) {
        List<String> command = new ArrayList<>();
        if (prefix != null) {
            command.addAll(prefix);
        }
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(properties);
        for (String p : List.of("pg.binaries.dir", "pg.default.version")) {
            String v = System.getProperty(p);
            if (v != null && properties.stream().noneMatch(s -> s.startsWith("-D" + p + "="))) {
                command.add("-D" + p + "=" + v);
            }
        }
        command.addAll(List.of("-cp", classPath, ChildJvmMain.class.getName(), mode));
        return new ProcessBuilder(command).redirectErrorStream(true);
    }

    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static String lines(String output, String prefix) {
        return output.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()))
                .findFirst().orElse("(no " + prefix + " line)");
    }

    private static Path openTempDir(String prefix) throws IOException {
        Path dir = Paths.get("/tmp", prefix + Long.toHexString(System.nanoTime()));
        Files.createDirectory(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    private static void copyTree(Path source, Path target) throws IOException {
        try (Stream<Path> all = Files.walk(source)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path t = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.createDirectories(t.getParent());
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** Directories 777 (the child writes its cache there), files world-readable. */
    private static void openUp(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(
                        Files.isDirectory(p) ? "rwxrwxrwx" : "rw-r--r--"));
            }
        }
    }
}
