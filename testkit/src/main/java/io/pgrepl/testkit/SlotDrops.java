package io.pgrepl.testkit;

import java.util.regex.Pattern;

/** {@link PgServer#dropReplicationSlot(String)}: the wait for the slot's holder to let go, then the drop. */
final class SlotDrops {
    private static final Pattern NAME = Pattern.compile("[a-z0-9_]{1,63}");
    /** One statement's share of the wait: below the SQL executor's own timeout on a statement. */
    private static final int STATEMENT_WAIT_SECONDS = 60;

    private SlotDrops() {}

    static void drop(PgServer server, String slot, boolean ifExists) throws Exception {
        // The server's own rule for slot names, which also makes them safe to quote as literals.
        if (!NAME.matcher(slot).matches()) throw new IllegalArgumentException("not a replication slot name: " + slot);
        // Waits on the server, where the slot's state is (pg_replication_slots reads shared memory, not
        // a snapshot); active_pid is null once no process holds the slot.
        String sql = """
                DO $drop$
                DECLARE
                  holder int;
                  give_up timestamptz := clock_timestamp() + interval '%2$d seconds';
                BEGIN
                  LOOP
                    SELECT active_pid INTO holder FROM pg_catalog.pg_replication_slots WHERE slot_name = '%1$s';
                    IF NOT FOUND THEN
                      IF %3$s THEN RETURN; END IF;
                      RAISE EXCEPTION 'replication slot "%1$s" does not exist' USING ERRCODE = '42704';
                    END IF;
                    EXIT WHEN holder IS NULL;
                    IF clock_timestamp() > give_up THEN
                      RAISE EXCEPTION 'replication slot "%1$s" is still active for PID %% after %2$d s', holder
                        USING ERRCODE = '55006';
                    END IF;
                    PERFORM pg_catalog.pg_sleep(0.02);
                  END LOOP;
                  PERFORM pg_catalog.pg_drop_replication_slot('%1$s');
                END
                $drop$""".formatted(slot, STATEMENT_WAIT_SECONDS, ifExists);
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (true) {
            try {
                server.sql("postgres", sql);
                return;
            } catch (Exception e) {
                // Still held, or taken again between the wait and the drop: wait on, up to the ceiling.
                if (!heldBySomeone(e) || System.nanoTime() > end) throw e;
            }
        }
    }

    private static boolean heldBySomeone(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("active for PID")) return true;
        }
        return false;
    }
}
