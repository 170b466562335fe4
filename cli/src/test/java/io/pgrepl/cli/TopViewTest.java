package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.slot.SlotHealth;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keys, sort and filter of pgrepl top's view, on given slot readings (the tmux test covers the real screen). */
class TopViewTest {
    static SlotHealth slot(String name, Long lag, Long safe) {
        return new SlotHealth(Instant.EPOCH, 18, false, name, "pgoutput", "logical", "postgres", false, false, null, null,
                0, 0, 0, lag, lag, null, "reserved", safe, null, null, null, null, null, null, null);
    }

    private static List<String> names(TopView v) {
        return v.rows().stream().map(SlotHealth::slotName).toList();
    }

    @Test
    void keysCycleTheSortReverseItFilterAndQuit() {
        TopView v = new TopView(10, false, false);
        v.update(List.of(slot("b", 10L, 5L), slot("a", 30L, null), slot("c", 20L, 1L)));
        assertEquals(List.of("a", "b", "c"), names(v));
        v.key('s');
        assertEquals(TopView.Sort.LAG, v.sort());
        assertEquals(List.of("a", "c", "b"), names(v), "largest lag first");
        v.key('r');
        assertEquals(List.of("b", "c", "a"), names(v));
        v.key('s');
        v.key('s');
        assertEquals(TopView.Sort.SAFE, v.sort());
        assertEquals(List.of("c", "b", "a"), names(v), "least safe first, unknown last");
        for (char c : "/a".toCharArray()) v.key(c);
        assertEquals(List.of("a"), names(v));
        v.key(27);
        assertEquals(3, names(v).size(), "Esc clears the filter");
        assertTrue(v.key('x'));
        assertFalse(v.key('q'));
    }

    @Test
    void renderFitsTheWidthAndColoursOnlyWhenAsked() {
        TopView plain = new TopView(10, false, true);
        plain.update(List.of(slot("a_very_long_slot_name_that_goes_on_and_on", 1L << 30, 1L)));
        for (String l : plain.render("title", 60, 10)) {
            assertTrue(l.length() <= 60, l);
            assertFalse(l.contains("\033"), l);
        }
        assertTrue(plain.render("t", 200, 10).get(3).contains("1.0 GB"));
        TopView colour = new TopView(10, true, true);
        colour.update(List.of(slot("a", 1L, 1L)));
        assertTrue(String.join("\n", colour.render("t", 200, 10)).contains("\033[7m"));
    }
}
