package io.pgrepl.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the PostgreSQL tools and system commands, output captured to a file. */
final class Processes {
    private Processes() {}

    record Result(List<String> command, int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }

        String describe() {
            return String.join(" ", command) + " exited with " + exitCode + ":\n" + output;
        }
    }

    /** Input bytes streamed to the process; null for none. */
    interface Stdin {
        void writeTo(OutputStream out) throws IOException;
    }

    static Result run(List<String> command, Path workDir, Stdin stdin, Duration timeout) {
        Path output = null;
        try {
            // A file, not a pipe: pg_ctl's postmaster may inherit our descriptors and outlive the call.
            output = Files.createTempFile("pgrepl-proc", ".out");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            if (workDir != null) {
                builder.directory(workDir.toFile());
            }
            if (stdin == null) {
                builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            }
            cleanEnvironment(builder.environment());
            Process process = builder.start();
            if (stdin != null) {
                try (OutputStream in = process.getOutputStream()) {
                    stdin.writeTo(in);
                } catch (IOException e) {
                    // the process died early; its exit code and output tell why
                }
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                return new Result(command, -1, "timed out after " + timeout + "\n" + read(output));
            }
            return new Result(command, process.exitValue(), read(output));
        } catch (IOException e) {
            return new Result(command, -2, "could not run: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(command, -3, "interrupted");
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    static Result run(List<String> command, Duration timeout) {
        return run(command, null, null, timeout);
    }

    static Result checked(List<String> command, Path workDir, Stdin stdin, Duration timeout) {
        Result result = run(command, workDir, stdin, timeout);
        if (!result.ok()) {
            throw new IllegalStateException(result.describe());
        }
        return result;
    }

    static List<String> list(String... parts) {
        return new ArrayList<>(List.of(parts));
    }

    private static void cleanEnvironment(Map<String, String> env) {
        // PGDATA, PGOPTIONS and friends from the caller's shell must not steer the test servers.
        env.keySet().removeIf(k -> k.startsWith("PG"));
        env.put("LC_ALL", "C");
        env.put("LANG", "C");
    }

    private static String read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int max = 16 * 1024;
        String text = new String(bytes, Math.max(0, bytes.length - max), Math.min(max, bytes.length),
                StandardCharsets.UTF_8);
        return text;
    }
}
