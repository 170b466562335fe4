package io.pgrepl.codec.pgoutput.record;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.codec.pgoutput.ColumnKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Column values compared in place between two tuples, at different positions and lengths. */
class TupleValueEqualsTest {
    private static ColumnValue text(String name, String v) {
        return new ColumnValue(name, 25, ColumnKind.TEXT, v.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void comparesTheValueBytesWhereverTheyLie() {
        Tuple a = new Tuple(List.of(text("id", "7"), text("note", "nöte"), new ColumnValue("x", 25, ColumnKind.NULL, null),
                new ColumnValue("y", 25, ColumnKind.ABSENT, null)));
        Tuple b = new Tuple(List.of(text("pad", "longer value first"), text("id", "7"), text("note", "nöt"),
                new ColumnValue("x", 25, ColumnKind.NULL, null), text("y", "")));
        assertTrue(a.valueEquals(0, b, 1), "7 and 7 at other offsets");
        assertFalse(a.valueEquals(1, b, 2), "a prefix is not equal");
        assertFalse(a.valueEquals(0, b, 0));
        assertTrue(a.valueEquals(2, b, 3), "two NULLs");
        assertTrue(a.valueEquals(3, a, 2), "no value and no value");
        assertFalse(a.valueEquals(3, b, 4), "no value against an empty string");
        assertFalse(b.valueEquals(4, a, 3));
    }
}
