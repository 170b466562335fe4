package io.pgrepl.client.tx;

import io.pgrepl.codec.Lsn;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Caps acknowledgements below the PREPARE of every prepared transaction the assembler keeps for
 * {@link PreparedDelivery#AT_COMMIT_PREPARED}. The server decodes again only what lies at or past
 * the slot's confirmed position; confirming past a kept PREPARE would make it send just the
 * COMMIT PREPARED after a reconnect, and the changes held only in this process would be lost.
 * Confirming exactly the prepare LSN still gets the PREPARE re-decoded (its record starts there).
 *
 * <p>Acknowledgements come from any thread; hold/release come from the assembler's thread.
 */
final class PreparedAckGate implements LongConsumer {
    private final LongConsumer downstream;
    /** xid → prepare LSN of the prepared transactions kept and not delivered yet. */
    private final Map<Long, Long> held = new HashMap<>();
    /** Highest LSN the application asked for. */
    private long requested;
    /** Highest LSN passed on. */
    private long passed;

    PreparedAckGate(LongConsumer downstream) {
        this.downstream = downstream;
    }

    @Override
    public synchronized void accept(long lsn) {
        requested = Lsn.max(requested, lsn);
        pass();
    }

    /** A prepared transaction is kept: nothing may be confirmed past {@code prepareLsn} until released. */
    synchronized void hold(long xid, long prepareLsn) {
        held.put(xid, prepareLsn);
    }

    /** Its COMMIT/ROLLBACK PREPARED arrived: what was capped for it flows again. */
    synchronized void release(long xid) {
        if (held.remove(xid) != null) pass();
    }

    /** The highest LSN an acknowledgement may confirm now (unsigned max when nothing is held). */
    synchronized long cap() {
        long cap = -1L;
        for (long p : held.values()) if (Long.compareUnsigned(p, cap) < 0) cap = p;
        return cap;
    }

    private void pass() {
        long c = cap();
        long lsn = Long.compareUnsigned(requested, c) <= 0 ? requested : c;
        if (lsn == 0 || Long.compareUnsigned(lsn, passed) <= 0) return;
        passed = lsn;
        if (downstream != null) downstream.accept(lsn);
    }
}
