package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.storage.Converter;
import org.junit.jupiter.api.Test;

/**
 * The README's sample configuration ({@code examples/kafka-connect/pgrepl-source.json}) stays one a
 * worker accepts: every key is the connector's own or one Connect itself reads, the connector's values
 * pass its ConfigDef, and the converters it names load and configure with the settings it gives them.
 */
class ExampleConfigTest {
    private static final Set<String> CONNECT_KEYS = Set.of("connector.class", "tasks.max", "exactly.once.support",
            "transaction.boundary");
    private static final List<String> CONNECT_PREFIXES = List.of("topic.creation.", "producer.override.",
            "key.converter", "value.converter");

    @Test
    void theSampleConfigurationIsOneTheConnectorAndWorkerAccept() throws Exception {
        Path file = Path.of("..", "examples", "kafka-connect", "pgrepl-source.json");
        JsonNode config = new ObjectMapper().readTree(Files.readString(file)).get("config");
        Map<String, String> own = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        config.fields().forEachRemaining(e -> {
            String key = e.getKey();
            if (PgreplConnectorConfig.CONFIG_DEF.names().contains(key)) {
                own.put(key, e.getValue().asText());
            } else if (!CONNECT_KEYS.contains(key) && CONNECT_PREFIXES.stream().noneMatch(key::startsWith)) {
                unknown.add(key);
            }
        });
        assertEquals(List.of(), unknown, "keys neither the connector nor Connect reads");
        assertEquals(PgreplSourceConnector.class.getName(), config.get("connector.class").asText());
        assertTrue(own.size() > 10, "the connector's own settings: " + own.keySet());
        for (ConfigValue v : PgreplConnectorConfig.CONFIG_DEF.validate(own)) {
            assertEquals(List.of(), v.errorMessages(), v.name());
        }
        for (String side : new String[] {"key", "value"}) {
            Class<?> cls = Class.forName(config.get(side + ".converter").asText());
            assertTrue(Converter.class.isAssignableFrom(cls), cls + " is a Converter");
            Map<String, Object> settings = new HashMap<>();
            String prefix = side + ".converter.";
            config.fields().forEachRemaining(e -> {
                if (e.getKey().startsWith(prefix)) settings.put(e.getKey().substring(prefix.length()), e.getValue().asText());
            });
            assertEquals("true", settings.get("schemas.enable"), "the sample writes Debezium's JSON with schemas");
            try (Converter c = (Converter) cls.getDeclaredConstructor().newInstance()) {
                c.configure(settings, side.equals("key"));
            }
        }
    }
}
