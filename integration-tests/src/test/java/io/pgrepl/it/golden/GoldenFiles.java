package io.pgrepl.it.golden;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the committed golden vectors live (the codec module's test resources). */
final class GoldenFiles {
    private GoldenFiles() {}

    static Path directory() {
        String configured = System.getProperty("golden.dir", "").trim();
        if (!configured.isEmpty()) return Path.of(configured);
        // Surefire runs in the module directory; the IDE may run in the repository root.
        for (Path base : new Path[] {Path.of(".."), Path.of(".")}) {
            Path p = base.resolve("codec/src/test/resources/golden");
            if (Files.isDirectory(base.resolve("codec"))) return p.toAbsolutePath().normalize();
        }
        throw new IllegalStateException("cannot find codec/src/test/resources/golden; set -Dgolden.dir");
    }
}
