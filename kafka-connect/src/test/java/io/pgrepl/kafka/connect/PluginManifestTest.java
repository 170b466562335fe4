package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plugin archive's {@code manifest.json} (filtered into the zip at package time) is valid JSON
 * with the fields a Confluent Hub style installer reads, and names the component types this jar
 * registers as services.
 */
class PluginManifestTest {
    @Test
    void manifestIsCompleteJsonAndMatchesTheServiceEntries() throws Exception {
        JsonNode m = new ObjectMapper().readTree(Files.readString(Path.of("src/assembly/manifest.json")));
        for (String field : List.of("name", "version", "title", "description", "owner", "component_types",
                "features", "license", "documentation_url")) {
            assertTrue(m.hasNonNull(field), "manifest.json lacks " + field);
        }
        assertEquals("${project.version}", m.get("version").asText(), "the version is filled in by the build");
        List<String> types = new ArrayList<>();
        m.get("component_types").forEach(t -> types.add(t.asText()));
        assertEquals(List.of("source", "converter"), types);
        assertTrue(Files.exists(Path.of("src/main/resources/META-INF/services/org.apache.kafka.connect.source.SourceConnector")));
        assertTrue(Files.exists(Path.of("src/main/resources/META-INF/services/org.apache.kafka.connect.storage.Converter")));
    }
}
