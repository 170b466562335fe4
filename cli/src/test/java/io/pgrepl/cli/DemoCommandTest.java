package io.pgrepl.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs {@code pgrepl demo} in-process against a real embedded PostgreSQL 18 and reads its JSON lines as a user would. */
class DemoCommandTest {

    @Test
    void demoShowsAVariedWorkloadInTheDefaultFormatOnOneScreen() {
        Cli.Result r = Cli.run("demo");
        assertEquals(0, r.rc(), r.err());
        List<JsonNode> lines = r.lines(); // every line parses as a JSON object
        assertEquals(List.of(
                "begin", "insert", "insert", "insert", "commit",
                "begin", "update", "commit",
                "begin", "delete", "commit",
                "begin", "update", "commit",
                "message",
                "begin", "insert", "update", "message", "delete", "commit"), r.types(), r.out());
        assertTrue(lines.size() + r.err().lines().count() <= 40, "fits one screen");

        // The default format: typed values, not the protocol format's text.
        JsonNode apple = lines.get(1).get("new");
        assertEquals("apple", apple.get("name").asText());
        assertTrue(apple.get("id").isIntegralNumber(), apple.toString());
        assertTrue(apple.get("price").isNumber() && apple.get("price").decimalValue().compareTo(new java.math.BigDecimal("0.45")) == 0,
                apple.toString());
        assertEquals(List.of("fruit", "red"), List.of(apple.get("tags").get(0).asText(), apple.get("tags").get(1).asText()));
        assertEquals("2026-01-15T09:30:00Z", apple.get("added").asText());
        assertEquals("NZ", apple.get("attrs").get("origin").asText(), "jsonb embedded as JSON");
        assertTrue(apple.get("in_stock").isBoolean() && apple.get("in_stock").booleanValue());
        assertTrue(lines.get(2).get("new").get("attrs").isNull());
        assertEquals("pgrepl_demo_items", lines.get(1).get("table").asText());
        assertEquals("public", lines.get(1).get("schema").asText());

        assertFalse(lines.get(6).get("new").get("in_stock").booleanValue(), "the update's new row");
        assertEquals(2, lines.get(9).get("key").get("id").intValue(), "the delete names the deleted key");
        JsonNode keyChange = lines.get(12);
        assertEquals(3, keyChange.get("key").get("id").intValue(), "a key change carries the old key");
        assertEquals(30, keyChange.get("new").get("id").intValue());
        assertFalse(lines.get(14).get("transactional").booleanValue());
        assertEquals("pgrepl-demo", lines.get(14).get("prefix").asText());
        assertEquals("hello, not part of a transaction", lines.get(14).get("content").asText());
        // The last transaction: its lines share one xid, between one begin and one commit.
        long xid = lines.get(15).get("xid").longValue();
        for (JsonNode n : lines.subList(15, 21)) assertEquals(xid, n.get("xid").longValue(), n.toString());
        assertTrue(lines.get(18).get("transactional").booleanValue());
        assertEquals(List.of("fruit", "sale"), List.of(lines.get(17).get("new").get("tags").get(0).asText(),
                lines.get(17).get("new").get("tags").get(2).asText()));

        assertTrue(r.err().contains("slot dropped"), r.err());
        assertTrue(r.err().stripTrailing().endsWith("\n  " + DemoCommand.YOUR_SERVER), r.err());
        assertTrue(DemoCommand.YOUR_SERVER.startsWith("pgrepl stream postgresql://"));
        for (String pw : io.pgrepl.testkit.secrets.TestSecrets.all()) {
            assertFalse(r.err().contains(pw) || r.out().contains(pw), "no password in the output");
        }
    }
}
