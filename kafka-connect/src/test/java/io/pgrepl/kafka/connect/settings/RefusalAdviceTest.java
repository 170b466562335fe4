package io.pgrepl.kafka.connect.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every refusal in the migration guide's settings table says what to do instead: each refused
 * setting, each setting's refused values, and each of snapshot.mode's refused values (answered with
 * their own advice by validate(), not Connect's list of valid values) give an instruction, and
 * validate() shows it under the key it names.
 */
class RefusalAdviceTest {
    /** An instruction: a verb telling the user what to do, as the advice's clause or after a colon or semicolon. */
    private static final Pattern INSTRUCTION = Pattern.compile("(?:^|[:;,(]\\s*|\\bor\\s+|\\band\\s+|\\bthen\\s+)"
            + "(use|set|remove|give|narrow|create|drop|leave|signal|let|rename|take|read|pick|run|add|grant|switch|reset"
            + "|alter|keep|write|filter|name|move|stop)\\b");

    @Test
    void everyRefusalInTheTableSaysWhatToDoInstead() {
        List<String> vague = new ArrayList<>();
        int walked = 0;
        for (DebeziumSetting s : DebeziumSettings.all()) {
            String key = s.family() ? s.name().replace("N", "5").replace("ALGORITHM", "SHA-256").replace("SALT", "s")
                    .replace("*", "x") : s.name();
            String message = null;
            if (s.treatment() == Treatment.REFUSED) message = s.refusal(key, "x");
            else if (s.honoured() != null) message = s.refusal(key, "no-such-value-9");
            for (Map.Entry<String, String> v : DebeziumSettings.refusedValues(s.name()).entrySet()) {
                List<String> errors = DebeziumContractTest.errorsOf(key, with(key, v.getKey()));
                assertEquals(1, errors.size(), key + "=" + v.getKey() + ": " + errors);
                assertTrue(errors.get(0).contains(key + "=" + v.getKey()) && errors.get(0).contains(v.getValue()), errors.get(0));
                if (!INSTRUCTION.matcher(v.getValue()).find()) vague.add(key + "=" + v.getKey() + ": " + v.getValue());
                walked++;
            }
            if (message == null) continue;
            walked++;
            assertTrue(message.startsWith(key), message);
            String advice = s.treatment() == Treatment.REFUSED ? s.note() : s.otherwise();
            if (!INSTRUCTION.matcher(advice).find()) vague.add(key + ": " + advice);
        }
        assertTrue(walked > 60, "refusals walked: " + walked);
        assertEquals(List.of(), vague, "refusals that do not say what to do instead");
    }

    @Test
    void snapshotModesAreAnsweredWithTheirOwnAdviceNotTheListOfValues() {
        List<String> errors = DebeziumContractTest.errorsOf("snapshot.mode", with("snapshot.mode", "Custom"));
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("Snapshotter") && !errors.get(0).contains("String must be one of"), errors.get(0));
        // A value nobody has: the valid ones are listed.
        errors = DebeziumContractTest.errorsOf("snapshot.mode", with("snapshot.mode", "sometimes"));
        assertTrue(errors.get(0).toLowerCase(java.util.Locale.ROOT).contains("always"), errors.toString());
        assertEquals(List.of(), DebeziumContractTest.errorsOf("snapshot.mode", with("snapshot.mode", "always")));
        // Debezium reads snapshot.mode.custom.name only with snapshot.mode=custom.
        Map<String, String> c = with("snapshot.mode", "initial");
        c.put("snapshot.mode.custom.name", "mine");
        assertEquals(List.of(), DebeziumContractTest.errorsOf("snapshot.mode.custom.name", c));
    }

    private static Map<String, String> with(String key, String value) {
        Map<String, String> c = DebeziumContractTest.valid();
        c.put(key, value);
        return c;
    }
}
