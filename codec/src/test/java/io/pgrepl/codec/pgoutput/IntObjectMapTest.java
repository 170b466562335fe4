package io.pgrepl.codec.pgoutput;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.*;

class IntObjectMapTest {
    /** Random put/remove/get sequences behave like HashMap<Integer, String>. */
    @Property(tries = 500)
    void behavesLikeHashMap(@ForAll List<@net.jqwik.api.constraints.IntRange(min = -40, max = 40) Integer> ops) {
        IntObjectMap<String> m = new IntObjectMap<>(2);
        Map<Integer, String> ref = new HashMap<>();
        int step = 0;
        for (int k : ops) {
            step++;
            if (step % 3 == 0) assertEquals(ref.remove(k), m.remove(k));
            else assertEquals(ref.put(k, "v" + step), m.put(k, "v" + step));
            assertEquals(ref.size(), m.size());
            for (int q = -41; q <= 41; q++) assertEquals(ref.get(q), m.get(q), "key " + q);
        }
        m.clear();
        assertTrue(m.isEmpty());
        assertNull(m.get(0));
    }

    @Example
    void extremeKeys() {
        IntObjectMap<String> m = new IntObjectMap<>();
        m.put(Integer.MIN_VALUE, "min");
        m.put(0, "zero");
        m.put(-1, "max-unsigned");
        assertEquals("min", m.get(Integer.MIN_VALUE));
        assertEquals("zero", m.get(0));
        assertEquals("max-unsigned", m.get(-1));
        assertThrows(NullPointerException.class, () -> m.put(1, null));
    }
}
