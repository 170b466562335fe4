package io.pgrepl.it.fault;

import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The majors the fault tests run on: the newest and the oldest of {@code -Dpg.versions} (18 and 10
 * by default). Faults are not protocol-version specific, so the full matrix would add time, not
 * evidence. One SCRAM server per major, shared by a test class.
 */
public final class FaultMajors implements AutoCloseable {
    private final Map<Integer, PgServer> servers = new TreeMap<>();
    private final Map<String, String> settings;

    public FaultMajors(Map<String, String> settings) {
        this.settings = settings;
    }

    public static Stream<Integer> newestAndOldest() {
        return newestAndOldest(0);
    }

    /** Newest and oldest of the matrix at or above {@code minMajor} (a feature's first major). */
    public static Stream<Integer> newestAndOldest(int minMajor) {
        List<Integer> m = PgVersions.matrix().stream().filter(v -> v >= minMajor).sorted().toList();
        if (m.isEmpty()) return Stream.of();
        int newest = Collections.max(m);
        int oldest = Collections.min(m);
        return newest == oldest ? Stream.of(newest) : Stream.of(newest, oldest);
    }

    public synchronized PgServer server(int major) {
        return servers.computeIfAbsent(major, v -> {
            var b = PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256);
            settings.forEach(b::setting);
            return b.start();
        });
    }

    @Override
    public synchronized void close() {
        servers.values().forEach(PgServer::close);
        servers.clear();
    }
}
