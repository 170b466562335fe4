package io.pgrepl.client.replication;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.codec.Lsn;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Text of the walsender commands, chosen by server version, and parsers of their rows. Pure
 * functions: the connection sends the text and hands back the result.
 */
public final class ReplicationCommands {
    private ReplicationCommands() {}

    /**
     * Runs a command builder, turning its validation failure into a failed stage (nothing is sent).
     *
     * @param builder builds the command text, throwing on invalid input
     * @return the text, or a stage failed with the builder's exception
     */
    public static CompletionStage<String> checked(Supplier<String> builder) {
        try {
            return CompletableFuture.completedFuture(builder.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Parses IDENTIFY_SYSTEM's row.
     *
     * @param r the result
     * @return systemid, timeline, xlogpos and dbname
     * @throws PgClientException (PROTOCOL) for a malformed timeline or LSN
     */
    public static IdentifySystem identifySystem(QueryResult r) {
        Row row = r.singleRow();
        String tl = row.get("timeline");
        String pos = row.get("xlogpos");
        return new IdentifySystem(row.get("systemid"), tl == null ? 0 : timelineColumn("timeline", tl),
                pos == null ? 0 : lsnColumn("xlogpos", pos), row.get("dbname"));
    }

    /**
     * SHOW takes a (possibly dotted) GUC name; keep it to characters a GUC name can have.
     *
     * @param name the GUC name
     * @return {@code name}
     * @throws IllegalArgumentException for a name that cannot be a GUC
     */
    public static String settingName(String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?")) {
            throw new IllegalArgumentException("invalid setting name \"" + name + "\"");
        }
        return name;
    }

    /**
     * The TIMELINE_HISTORY command.
     *
     * @param timeline the timeline ID, 1 to 2^32-1
     * @return the command
     * @throws IllegalArgumentException for a timeline out of range
     */
    public static String timelineHistory(long timeline) {
        if (timeline < 1 || timeline > 0xFFFF_FFFFL) throw new IllegalArgumentException("invalid timeline " + timeline);
        return "TIMELINE_HISTORY " + timeline;
    }

    /**
     * Parses TIMELINE_HISTORY's row.
     *
     * @param r the result
     * @return the history file's name and content
     */
    public static TimelineHistory timelineHistory(QueryResult r) {
        Row row = r.singleRow();
        return new TimelineHistory(row.get(0), row.bytes(1));
    }

    /**
     * The CREATE_REPLICATION_SLOT command: the option list form on PostgreSQL 15+, the older keywords before.
     *
     * @param o                the slot to create
     * @param serverVersionNum the server_version_num of the target server
     * @return the command
     * @throws PgClientException (UNSUPPORTED_BY_SERVER) if the server is too old for it
     */
    public static String createSlot(CreateSlotOptions o, int serverVersionNum) {
        int major = serverVersionNum / 10000;
        if (o.twoPhase() && major < 15) throw unsupported("TWO_PHASE slots need PostgreSQL 15 or later", major);
        if (o.failover() && major < 17) throw unsupported("FAILOVER slots need PostgreSQL 17 or later", major);
        StringBuilder sb = new StringBuilder("CREATE_REPLICATION_SLOT ").append(o.slotName());
        if (o.temporary()) sb.append(" TEMPORARY");
        sb.append(o.logical() ? " LOGICAL " + o.plugin() : " PHYSICAL");
        List<String> opts = new ArrayList<>();
        if (major >= 15) {
            if (o.snapshot() != null) opts.add("SNAPSHOT '" + o.snapshot().option + "'");
            if (o.twoPhase()) opts.add("TWO_PHASE");
            if (o.failover()) opts.add("FAILOVER");
            if (o.reserveWal()) opts.add("RESERVE_WAL");
            if (!opts.isEmpty()) sb.append(" (").append(String.join(", ", opts)).append(')');
        } else {
            if (o.snapshot() != null) sb.append(' ').append(o.snapshot().legacyKeyword);
            if (o.reserveWal()) sb.append(" RESERVE_WAL");
        }
        return sb.toString();
    }

    /**
     * Parses CREATE_REPLICATION_SLOT's row.
     *
     * @param r the result
     * @return slot_name, consistent_point, snapshot_name and output_plugin
     */
    public static SlotCreated slotCreated(QueryResult r) {
        Row row = r.singleRow();
        String cp = row.get("consistent_point");
        return new SlotCreated(row.get("slot_name"), cp == null ? 0 : lsnColumn("consistent_point", cp), row.get("snapshot_name"),
                row.get("output_plugin"));
    }

    /**
     * The READ_REPLICATION_SLOT command (PostgreSQL 15+).
     *
     * @param slotName         the slot
     * @param serverVersionNum the server_version_num of the target server
     * @return the command
     * @throws PgClientException (UNSUPPORTED_BY_SERVER) if the server is too old for it
     */
    public static String readSlot(String slotName, int serverVersionNum) {
        Identifiers.requireSlotName(slotName);
        int major = serverVersionNum / 10000;
        if (major < 15) throw unsupported("READ_REPLICATION_SLOT needs PostgreSQL 15 or later", major);
        return "READ_REPLICATION_SLOT " + slotName;
    }

    /**
     * Parses READ_REPLICATION_SLOT's row.
     *
     * @param r the result
     * @return slot_type, restart_lsn and restart_tli, or empty when the slot does not exist
     */
    public static Optional<ReplicationSlotStatus> readSlot(QueryResult r) {
        Row row = r.singleRow();
        if (row.isNull(0)) return Optional.empty();
        String lsn = row.get(1);
        String tli = row.get(2);
        return Optional.of(new ReplicationSlotStatus(row.get(0), lsn == null ? 0 : lsnColumn("restart_lsn", lsn),
                tli == null ? 0 : timelineColumn("restart_tli", tli)));
    }

    /**
     * The ALTER_REPLICATION_SLOT command (PostgreSQL 17+; TWO_PHASE 18+).
     *
     * @param slotName         the slot
     * @param failover         the new FAILOVER setting, or null to leave it
     * @param twoPhase         the new TWO_PHASE setting, or null to leave it
     * @param serverVersionNum the server_version_num of the target server
     * @return the command
     * @throws PgClientException (UNSUPPORTED_BY_SERVER) if the server is too old for it
     * @throws IllegalArgumentException if both settings are null
     */
    public static String alterSlot(String slotName, Boolean failover, Boolean twoPhase, int serverVersionNum) {
        Identifiers.requireSlotName(slotName);
        int major = serverVersionNum / 10000;
        if (major < 17) throw unsupported("ALTER_REPLICATION_SLOT needs PostgreSQL 17 or later", major);
        if (twoPhase != null && major < 18) throw unsupported("altering TWO_PHASE needs PostgreSQL 18 or later", major);
        if (failover == null && twoPhase == null) throw new IllegalArgumentException("nothing to alter");
        List<String> opts = new ArrayList<>();
        if (failover != null) opts.add("FAILOVER " + failover);
        if (twoPhase != null) opts.add("TWO_PHASE " + twoPhase);
        return "ALTER_REPLICATION_SLOT " + slotName + " (" + String.join(", ", opts) + ")";
    }

    /**
     * The DROP_REPLICATION_SLOT command.
     *
     * @param slotName the slot
     * @param wait     add WAIT: wait for a walsender holding the slot to release it instead of failing
     * @return the command
     */
    public static String dropSlot(String slotName, boolean wait) {
        Identifiers.requireSlotName(slotName);
        return "DROP_REPLICATION_SLOT " + slotName + (wait ? " WAIT" : "");
    }

    /**
     * An LSN sent by the server as text. A malformed one is a protocol error; the message names
     * the column only (the value is the server's, and no cause carries it either).
     *
     * @param column the column name, for the message
     * @param text   the value
     * @return the LSN
     * @throws PgClientException (PROTOCOL) if it is not an LSN
     */
    public static long lsnColumn(String column, String text) {
        try {
            return Lsn.parse(text);
        } catch (RuntimeException e) {
            throw badColumn(column, "an LSN");
        }
    }

    /**
     * A timeline ID (uint32) sent by the server as text; see {@link #lsnColumn}.
     *
     * @param column the column name, for the message
     * @param text   the value
     * @return the timeline ID
     * @throws PgClientException (PROTOCOL) if it is not a uint32
     */
    public static long timelineColumn(String column, String text) {
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw badColumn(column, "a timeline ID");
        }
        if (v < 0 || v > 0xFFFF_FFFFL) throw badColumn(column, "a timeline ID");
        return v;
    }

    private static PgClientException badColumn(String column, String what) {
        return new PgClientException(PgClientException.Kind.PROTOCOL,
                "protocol violation: column " + column + " is not " + what);
    }

    private static PgClientException unsupported(String what, int major) {
        return new PgClientException(PgClientException.Kind.UNSUPPORTED_BY_SERVER, what + " (server is " + major + ")");
    }
}
