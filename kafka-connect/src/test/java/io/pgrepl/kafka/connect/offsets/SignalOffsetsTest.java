package io.pgrepl.kafka.connect.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The kafka signal position beside the engine's state in one stored string (no server needed). */
class SignalOffsetsTest {
    private static final String STATE = "pgrepl-inc 1\nt public.a - -\nr - - 7 0";

    @Test
    void thePositionRidesAfterTheEnginesStateAndComesOffAgain() {
        assertEquals(STATE, SignalOffsets.with(STATE, -1), "nothing added before any signal was read");
        String stored = SignalOffsets.with(STATE, 42);
        assertEquals(STATE + "\nkafka-signal 42", stored);
        assertEquals(STATE, SignalOffsets.engineState(stored), "the engine gets back exactly its own state");
        assertEquals(42, SignalOffsets.next(stored));
        assertEquals(-1, SignalOffsets.next(STATE));
        assertNull(SignalOffsets.engineState(null));
        assertEquals(-1, SignalOffsets.next(null));
    }

    @Test
    void aPositionThatIsNotANumberIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SignalOffsets.next(STATE + "\nkafka-signal x"));
        assertTrue(e.getMessage().contains("kafka signal position"), e.getMessage());
    }
}
