package io.pgrepl.client.internal.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EarlyAcknowledgerTest {
    @Test
    void acknowledgementsBeforeTheStreamExistsAreAppliedOnceItDoes() {
        var ack = new EarlyAcknowledger();
        List<Long> applied = new ArrayList<>();
        ack.accept(0x200);
        ack.accept(0x100); // out of order: the highest is what counts
        assertEquals(List.of(), applied);
        ack.attach(applied::add);
        assertEquals(List.of(0x200L), applied, "the highest early acknowledgement is not dropped");
        ack.accept(0x300);
        assertEquals(List.of(0x200L, 0x300L), applied);
    }

    @Test
    void nothingEarlyMeansNothingApplied() {
        var ack = new EarlyAcknowledger();
        List<Long> applied = new ArrayList<>();
        ack.attach(applied::add);
        assertEquals(List.of(), applied);
    }

    @Test
    void concurrentEarlyAcknowledgementsAreNeverLost() throws Exception {
        for (int round = 0; round < 200; round++) {
            var ack = new EarlyAcknowledger();
            java.util.concurrent.atomic.AtomicLong max = new java.util.concurrent.atomic.AtomicLong();
            Thread t = new Thread(() -> {
                for (long l = 1; l <= 1000; l++) ack.accept(l);
            });
            t.start();
            ack.attach(l -> max.accumulateAndGet(l, Math::max));
            t.join();
            assertEquals(1000, max.get());
        }
    }
}
