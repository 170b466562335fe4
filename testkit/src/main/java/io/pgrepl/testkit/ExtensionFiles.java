package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * An extension built elsewhere for the same PostgreSQL major (a distribution's package), whose files an
 * embedded server's installation gets: the control and SQL files named {@code name*} from
 * {@code controlDir} into {@code share/postgresql/extension}, the libraries {@code name*.so} from
 * {@code libraryDir} into {@code lib/postgresql} (where {@code $libdir} in the control file points).
 * The embedded binaries have no {@code extension_control_path} before 18 and look up {@code $libdir}
 * relative to themselves, so the kit serves such a server from a copy of the installation with the
 * files added (once per set of files, in the shared cache). The libraries' own dependencies are loaded
 * by the system's dynamic linker from its usual places.
 *
 * @param name       the extension, and the prefix of its files ({@code postgis} also brings
 *                   {@code postgis_raster}, {@code postgis_topology}, ...)
 * @param libraryDir where the package put the {@code .so} files
 * @param controlDir where the package put the {@code .control} and {@code .sql} files
 */
public record ExtensionFiles(String name, Path libraryDir, Path controlDir) {

    public ExtensionFiles {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(libraryDir, "libraryDir");
        Objects.requireNonNull(controlDir, "controlDir");
        if (name.isEmpty() || name.contains("/")) {
            throw new IllegalArgumentException("not an extension name: " + name);
        }
    }

    /** Where Debian's {@code postgresql-<major>-<extension>} packages put them. */
    public static ExtensionFiles debian(String name, int major) {
        return new ExtensionFiles(name, Path.of("/usr/lib/postgresql", Integer.toString(major), "lib"),
                Path.of("/usr/share/postgresql", Integer.toString(major), "extension"));
    }

    /** Whether the extension's control file is there. */
    public boolean installed() {
        return Files.isRegularFile(controlDir.resolve(name + ".control"));
    }

    /** The files to add: control and SQL files, then libraries; refused when the control file is missing. */
    List<Path> files() {
        if (!installed()) {
            throw new IllegalStateException("extension " + name + ": no " + controlDir.resolve(name + ".control")
                    + "; install the extension's package built for this PostgreSQL major (Debian: apt-get install "
                    + "postgresql-<major>-" + name + "...), or leave the extension out of the server spec");
        }
        List<Path> files = new ArrayList<>(matching(controlDir, ".control", ".sql"));
        files.addAll(matching(libraryDir, ".so"));
        return files;
    }

    private List<Path> matching(Path dir, String... suffixes) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isRegularFile)
                    .filter(p -> {
                        String f = p.getFileName().toString();
                        if (!f.startsWith(name)) return false;
                        for (String s : suffixes) if (f.endsWith(s)) return true;
                        return false;
                    })
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
