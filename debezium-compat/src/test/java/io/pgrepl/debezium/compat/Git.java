package io.pgrepl.debezium.compat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The commit the table's runs were built from. */
final class Git {
    private Git() {}

    /** {@code git rev-parse --short HEAD} in {@code dir}, or {@code unknown} outside a clone. */
    static String head(Path dir) {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD").directory(dir.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) return "unknown";
            return out;
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
