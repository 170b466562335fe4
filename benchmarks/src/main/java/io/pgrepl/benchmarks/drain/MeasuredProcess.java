package io.pgrepl.benchmarks.drain;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs one client command as a child process and measures it from the outside, without
 * {@code /usr/bin/time}: a {@code bash} wrapper runs the command and then its {@code times}
 * builtin, which prints the user and system CPU of its waited-for children (getrusage
 * RUSAGE_CHILDREN); peak RSS is the child's {@code VmHWM} from {@code /proc/<pid>/status}, a
 * high-water mark, polled every 20 ms until the child exits (so at most the last 20 ms are unseen).
 */
final class MeasuredProcess {
    /** One finished run. {@code stderr} holds the client's own report line ({@code rows=N}). */
    record Result(int exitCode, double wallSeconds, double userSeconds, double sysSeconds, long peakRssKb, String stderr) {
        double cpuSeconds() {
            return userSeconds + sysSeconds;
        }
    }

    private MeasuredProcess() {}

    /** Runs {@code command} with its stdout to {@code stdout} (a file or /dev/null). */
    static Result run(List<String> command, Path stdout, Map<String, String> env, long timeoutSeconds)
            throws IOException, InterruptedException {
        List<String> wrapped = new ArrayList<>(List.of("bash", "-c", "out=$1; shift; \"$@\" >\"$out\"; rc=$?; times; exit $rc",
                "bash", stdout.toString()));
        wrapped.addAll(command);
        Path err = Files.createTempFile("drain", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(wrapped).redirectError(err.toFile());
            pb.environment().putAll(env);
            pb.environment().put("LC_ALL", "C"); // `times` prints 0m1.234s, not 0m1,234s
            long t0 = System.nanoTime();
            Process p = pb.start();
            long peak = 0;
            long child = -1;
            while (!p.waitFor(20, TimeUnit.MILLISECONDS)) {
                if (child < 0) {
                    Optional<ProcessHandle> c = p.toHandle().children().findFirst();
                    if (c.isPresent()) child = c.get().pid();
                }
                if (child > 0) peak = Math.max(peak, vmHwmKb(child));
                if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(timeoutSeconds)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new IllegalStateException("timed out after " + timeoutSeconds + " s: " + command);
                }
            }
            double wall = (System.nanoTime() - t0) / 1e9;
            String times = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            // `times`: the shell's own user/sys on line 1, its children's on line 2 ("0m1.234s 0m0.567s").
            String[] lines = times.strip().split("\n");
            if (lines.length < 2) throw new IllegalStateException("no `times` output from the wrapper: " + times);
            String[] children = lines[1].trim().split("\\s+");
            return new Result(p.exitValue(), wall, seconds(children[0]), seconds(children[1]), peak, Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private static double seconds(String bashTime) {
        int m = bashTime.indexOf('m');
        return Integer.parseInt(bashTime.substring(0, m)) * 60
                + Double.parseDouble(bashTime.substring(m + 1, bashTime.length() - 1));
    }

    private static long vmHwmKb(long pid) {
        try {
            for (String line : Files.readAllLines(new File("/proc/" + pid + "/status").toPath())) {
                if (line.startsWith("VmHWM:")) return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException gone) {
            // exited between two polls: the previous sample stands
        }
        return 0;
    }
}
