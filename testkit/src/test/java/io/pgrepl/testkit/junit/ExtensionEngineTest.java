package io.pgrepl.testkit.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.pgrepl.testkit.PgServer;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/** Runs sample classes through the JUnit engine to see what happens after and around them. */
class ExtensionEngineTest {
    private static final String RUNNING = "pgrepl.testkit.sample";
    static final List<PgServer> SEEN = new CopyOnWriteArrayList<>();

    @Test
    void serversAreClosedWhenTheClassEnds() {
        SEEN.clear();
        run(Sample.class).testEvents().assertStatistics(s -> s.started(2).succeeded(2));
        assertEquals(2, SEEN.size());
        assertEquals(SEEN.get(0), SEEN.get(1), "one server per class");
        PgServer server = SEEN.get(0);
        assertFalse(server.isRunning());
        assertFalse(Files.exists(server.dataDir()), "data dir deleted after the class");
    }

    @Test
    void missingDockerSkipsWithAReason() {
        boolean docker = org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        Assumptions.assumeFalse(docker, "a Docker engine answers here; the skip path cannot be shown");
        String saved = System.getProperty("pg.backend");
        System.setProperty("pg.backend", "docker");
        try {
            EngineExecutionResults results = run(Sample.class);
            results.testEvents().assertStatistics(stats -> stats.started(0).failed(0));
            List<String> reasons = results.containerEvents().skipped().list().stream()
                    .map(e -> e.getPayload(String.class).orElse("")).toList();
            assertEquals(1, reasons.size(), reasons::toString);
            assertTrue(reasons.get(0).contains("no Docker engine"), reasons::toString);
        } finally {
            if (saved == null) {
                System.clearProperty("pg.backend");
            } else {
                System.setProperty("pg.backend", saved);
            }
        }
    }

    private static EngineExecutionResults run(Class<?> sample) {
        System.setProperty(RUNNING, "true");
        try {
            return EngineTestKit.engine("junit-jupiter").selectors(selectClass(sample)).execute();
        } finally {
            System.clearProperty(RUNNING);
        }
    }

    @PgTest
    @EnabledIfSystemProperty(named = RUNNING, matches = "true")
    static class Sample {
        @Test
        void first(PgServer server) {
            assertTrue(server.isRunning());
            SEEN.add(server);
        }

        @Test
        void second(PgServer server) {
            SEEN.add(server);
        }
    }
}
