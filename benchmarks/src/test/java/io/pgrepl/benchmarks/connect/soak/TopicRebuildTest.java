package io.pgrepl.benchmarks.connect.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The soak's replay, on records written by hand in the JsonConverter's envelope (schemas enabled, as
 * the soak's converters write them): what it rebuilds, and that it notices duplicates and anomalies.
 * Expected values come from the records written here, never from the replay.
 */
class TopicRebuildTest {
    private static final String ITEMS = "soak.public.soak_items";
    private static final String ACCOUNTS = "soak.public.soak_accounts";

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] key(String field, long id) {
        return json("{\"schema\":{\"type\":\"struct\"},\"payload\":{\"" + field + "\":" + id + "}}");
    }

    private static byte[] item(String op, long id, long ver, int qty, String big) {
        return item(op, id, ver, qty, big, 1);
    }

    private static byte[] item(String op, long id, long ver, int qty, String big, long lsn) {
        String after = op.equals("d") ? "null" : "{\"id\":" + id + ",\"ver\":" + ver + ",\"qty\":" + qty
                + ",\"note\":\"n\",\"big\":" + (big == null ? "null" : "\"" + big + "\"") + "}";
        String before = op.equals("d") ? "{\"id\":" + id + "}" : "null";
        return json("{\"schema\":{\"type\":\"struct\"},\"payload\":{\"op\":\"" + op + "\",\"before\":" + before
                + ",\"after\":" + after + ",\"source\":{\"txId\":7,\"lsn\":" + lsn + "}}}");
    }

    @Test
    void replaysCreatesUpdatesDeletesAndKeepsTheToastedValueBehindThePlaceholder() {
        TopicRebuild r = new TopicRebuild();
        r.apply(ITEMS, key("id", 1), item("r", 1, 10, 0, "bigvalue"));
        r.apply(ITEMS, key("id", 2), item("c", 2, 11, 5, null));
        r.apply(ITEMS, key("id", 1), item("u", 1, 12, 1, TopicRebuild.PLACEHOLDER));
        r.apply(ITEMS, key("id", 2), item("d", 2, 0, 0, null));
        r.apply(ITEMS, key("id", 2), null);
        r.apply(ACCOUNTS, key("k", 7), json("{\"schema\":{},\"payload\":{\"op\":\"u\",\"after\":{\"k\":7,\"ver\":13,\"n\":4}}}"));
        r.apply("soak.public.soak_end", key("id", 1), json("{\"payload\":{\"op\":\"c\",\"after\":{\"id\":1}}}"));

        assertEquals(Map.of(1L, new TopicRebuild.Item(12, 1, "n", TopicRebuild.md5("bigvalue"))), r.items);
        assertEquals("130586183e8d94e88fb2ef281b175eb8", TopicRebuild.md5("bigvalue"), "PostgreSQL's md5('bigvalue')");
        assertEquals(0, r.duplicates);
        assertEquals(1, r.anomalies, "the update of account 7, never created: " + r.examples);
        assertTrue(r.endMarker);
        assertEquals(7, r.records);
    }

    /** A key change: delete of the old key, tombstone, create of the new one with the placeholder. */
    @Test
    void aKeyChangesCreateTakesTheUnchangedToastedValueFromTheDeletedRowOfItsTransaction() {
        TopicRebuild r = new TopicRebuild();
        r.apply(ITEMS, key("id", 1), item("c", 1, 10, 0, "bigvalue", 5));
        r.apply(ITEMS, key("id", 1), item("d", 1, 0, 0, null, 9));
        r.apply(ITEMS, key("id", 1), null);
        r.apply(ITEMS, key("id", 2), item("c", 2, 11, 0, TopicRebuild.PLACEHOLDER, 9));
        r.apply(ITEMS, key("id", 3), item("c", 3, 12, 0, "x", 9));
        r.apply(ITEMS, key("id", 3), item("d", 3, 0, 0, null, 9));
        r.apply(ITEMS, key("id", 4), item("c", 4, 13, 0, TopicRebuild.PLACEHOLDER, 11)); // another transaction
        assertEquals(new TopicRebuild.Item(11, 0, "n", TopicRebuild.md5("bigvalue")), r.items.get(2L));
        assertEquals(TopicRebuild.PLACEHOLDER, r.items.get(4L).bigMd5(), "nothing to carry over from another transaction");
        assertEquals(1, r.keyChangeCarries);
    }

    @Test
    void countsARecordSeenTwiceAndADeleteOfAnAbsentRow() {
        TopicRebuild r = new TopicRebuild();
        r.apply(ITEMS, key("id", 1), item("c", 1, 10, 0, null));
        r.apply(ITEMS, key("id", 1), item("c", 1, 10, 0, null));
        r.apply(ITEMS, key("id", 3), item("d", 3, 0, 0, null));
        r.apply(ITEMS, key("id", 3), null);
        r.apply(ITEMS, key("id", 3), null);
        assertEquals(2, r.duplicates, r.examples.toString());
        assertEquals(2, r.anomalies, "the second create of 1, the delete of 3: " + r.examples);
    }

    @Test
    void comparesEveryRowBothWays() {
        List<String> out = new ArrayList<>();
        Map<Long, TopicRebuild.Item> source = Map.of(1L, new TopicRebuild.Item(1, 1, "a", null),
                2L, new TopicRebuild.Item(2, 2, "b", null));
        Map<Long, TopicRebuild.Item> topic = Map.of(1L, new TopicRebuild.Item(1, 1, "a", null),
                2L, new TopicRebuild.Item(3, 2, "b", null), 4L, new TopicRebuild.Item(4, 4, "d", null));
        assertEquals(2, TopicRebuild.compare(source, topic, "t", out, 10), out.toString());
        assertEquals(0, TopicRebuild.compare(source, Map.copyOf(source), "t", out, 10));
    }
}
