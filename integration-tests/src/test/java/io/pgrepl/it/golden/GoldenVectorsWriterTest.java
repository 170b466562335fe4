package io.pgrepl.it.golden;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The golden-vector generator: (re)writes {@code codec/src/test/resources/golden/pg<major>/} for
 * every major of {@code -Dpg.versions}. Off unless asked for:
 * <pre>
 * mvn -B -ntp -pl integration-tests -am verify -Dgolden.capture=true \
 *     -Dtest='GoldenVectorsWriterTest' -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * {@code -Dgolden.dir} overrides the output directory.
 */
@EnabledIfSystemProperty(named = "golden.capture", matches = "true")
class GoldenVectorsWriterTest {

    @Test
    void writeGoldenVectors() throws Exception {
        Path root = GoldenFiles.directory();
        for (int major : PgVersions.matrix()) {
            try (PgServer server = GoldenCapture.start(major)) {
                GoldenCapture.Capture c = GoldenCapture.capture(server);
                Path dir = root.resolve("pg" + major);
                Files.createDirectories(dir);
                for (Map.Entry<String, List<String>> e : c.pgoutput().entrySet()) {
                    assertFalse(e.getValue().isEmpty(), "empty capture " + e.getKey());
                    write(dir.resolve(e.getKey() + ".tsv"), e.getValue());
                }
                for (Map.Entry<String, List<String>> e : c.testDecoding().entrySet()) {
                    assertFalse(e.getValue().isEmpty(), "empty capture " + e.getKey());
                    write(dir.resolve(e.getKey() + ".txt"), e.getValue());
                }
                assertTrue(Files.isDirectory(dir));
            }
        }
    }

    private static void write(Path file, List<String> lines) throws Exception {
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
