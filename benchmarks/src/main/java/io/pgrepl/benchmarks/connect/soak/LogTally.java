package io.pgrepl.benchmarks.connect.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;

/** What the workers' logs say happened to the task: starts, stream reconnects, stops over Connect's graceful timeout. */
record LogTally(long taskStarts, long reconnects, long gracefulStopFailures) {
    static LogTally of(List<SoakWorker> workers) {
        long starts = 0;
        long reconnects = 0;
        long graceless = 0;
        for (SoakWorker w : workers) {
            try (var lines = Files.lines(w.log)) {
                for (String l : (Iterable<String>) lines::iterator) {
                    if (l.contains("pgrepl task for slot")) starts++;
                    if (l.contains("reconnecting (attempt")) reconnects++;
                    if (l.contains("Graceful stop of task")) graceless++;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new LogTally(starts, reconnects, graceless);
    }
}
