package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The task gave up after ten failures (about 37 s of backoff) even while the
 * slot was only held by a walsender that had not noticed its dead peer. A held slot is waited for
 * up to its own deadline without counting; other failures still give up after ten in a row.
 */
class ReconnectBudgetTest {
    private final AtomicLong now = new AtomicLong();
    private final ReconnectBudget budget = new ReconnectBudget(Duration.ofSeconds(60), now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void aHeldSlotIsWaitedForUntilItsDeadlineWithoutCounting() {
        // 5 s apart (the longest backoff): 11 refusals span 50 s, past ten failures and 37 s.
        for (int i = 0; i < 11; i++) {
            assertNull(budget.failed(true), "refusal " + (i + 1) + " at " + (i * 5) + " s is waited for");
            assertTrue(budget.waitingForSlot());
            advance(Duration.ofSeconds(5));
        }
        assertEquals(0, budget.failures(), "held-slot refusals are not failures");
        advance(Duration.ofSeconds(6));
        String why = budget.failed(true);
        assertNotNull(why, "gives up once the slot was held for longer than 60 s");
        assertTrue(why.contains("held by another connection"), why);
    }

    @Test
    void otherFailuresGiveUpAfterTenInARowAndADeliveryResets() {
        for (int i = 0; i < 10; i++) assertNull(budget.failed(false));
        assertNotNull(budget.failed(false), "the eleventh failure in a row gives up");

        ReconnectBudget b = new ReconnectBudget(Duration.ofSeconds(60), now::get);
        for (int i = 0; i < 9; i++) assertNull(b.failed(false));
        b.succeeded();
        for (int i = 0; i < 10; i++) assertNull(b.failed(false), "counting starts again after the stream delivered");
    }

    @Test
    void theHeldSlotDeadlineRestartsAfterAnotherKindOfFailure() {
        assertNull(budget.failed(true));
        advance(Duration.ofSeconds(59));
        assertNull(budget.failed(false), "a connection failure in between");
        advance(Duration.ofSeconds(30));
        assertNull(budget.failed(true), "a new run of refusals: its own 60 s");
        assertEquals(1, budget.failures());
    }
}
