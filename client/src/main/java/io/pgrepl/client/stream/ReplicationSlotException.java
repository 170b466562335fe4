package io.pgrepl.client.stream;

import io.pgrepl.client.PgException;

/**
 * START_REPLICATION could not use the slot. Never transient: waiting for a slot held by another
 * connection is a policy ({@link ReconnectPolicy#slotInUseWait()}), not a property of the error.
 */
public final class ReplicationSlotException extends ReplicationServerErrorException {
    private static final long serialVersionUID = 1L;

    /** Why the slot could not be used. */
    public enum Condition {
        /** 55006: another walsender holds the slot (active_pid is set). */
        IN_USE,
        /** 42704: the slot does not exist (never created, or dropped). */
        MISSING,
        /**
         * The slot was invalidated ({@code wal_status = 'lost'} on 13+, {@code invalidation_reason}
         * on 17+): the WAL it needs is gone, it can never stream again.
         */
        INVALIDATED,
        /** 55000 at START without a catalog answer: invalidated, or of another database or kind. */
        UNUSABLE
    }

    /** Why the slot could not be used. */
    private final Condition condition;
    /** The invalidation reason or the server's detail, or null. */
    private final String reason;

    ReplicationSlotException(Condition condition, String reason, PgException cause, boolean beforeCopy) {
        super(message(condition, reason, cause), cause, beforeCopy);
        this.condition = condition;
        this.reason = reason;
    }

    /** The same server error, now known to be an invalidation with {@code reason}. */
    ReplicationSlotException invalidated(String reason) {
        return new ReplicationSlotException(Condition.INVALIDATED, reason, serverError(), beforeCopy());
    }

    /** {@return why the slot could not be used} */
    public Condition condition() {
        return condition;
    }

    /**
     * For {@link Condition#INVALIDATED}: the server's invalidation_reason (17+: wal_removed,
     * rows_removed, wal_level_insufficient, idle_timeout) or, before 17, {@code wal_removed} for
     * {@code wal_status = 'lost'}; for {@link Condition#UNUSABLE} the server's detail; else null.
     *
     * @return the reason, or null
     */
    public String reason() {
        return reason;
    }

    @Override
    public boolean isTransient() {
        return false;
    }

    private static String message(Condition c, String reason, PgException cause) {
        String what = switch (c) {
            case IN_USE -> "replication slot in use by another connection";
            case MISSING -> "replication slot does not exist";
            case INVALIDATED -> "replication slot invalidated (" + reason + "): " + explanation(reason);
            case UNUSABLE -> "replication slot cannot be used";
        };
        return what + ": " + cause.getMessage();
    }

    /**
     * What an invalidation_reason means and what to do; every one needs the slot dropped and
     * created again, and the consumer resynchronised (the changes in between are lost to it).
     */
    static String explanation(String reason) {
        String why = switch (reason == null ? "" : reason) {
            case "rows_removed" -> "the primary removed catalog rows this slot still needed (a recovery conflict on a"
                    + " standby, or vacuum past the slot's catalog_xmin). On a standby, give it a physical slot on the primary"
                    + " (primary_slot_name) and hot_standby_feedback=on so that the primary keeps those rows";
            case "wal_level_insufficient" -> "the primary's wal_level was lowered below logical. Set wal_level=logical"
                    + " on the primary (a restart)";
            case "conflicting" -> "it conflicted with recovery on this standby (PostgreSQL 16 does not say whether"
                    + " catalog rows were removed or the primary's wal_level was lowered). Keep wal_level=logical on the"
                    + " primary, and a physical slot with hot_standby_feedback=on between primary and standby";
            case "wal_removed" -> "the WAL it needed was removed (max_slot_wal_keep_size, or lost). Consume faster or"
                    + " raise the limit";
            case "idle_timeout" -> "it was inactive for longer than idle_replication_slot_timeout. Keep a consumer"
                    + " connected or raise the timeout";
            default -> "the server can never stream from it again";
        };
        return why + "; then drop and create the slot again and resynchronise the consumer (take a new snapshot):"
                + " it will not be retried";
    }
}
