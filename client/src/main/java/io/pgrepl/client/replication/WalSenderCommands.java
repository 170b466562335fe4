package io.pgrepl.client.replication;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.ReplicationMode;

/**
 * The commands of the streaming replication protocol only a walsender understands, and the check
 * that refuses them, before anything is sent, on a connection that was not opened as one. A
 * plain backend would answer {@code syntax error at or near "IDENTIFY_SYSTEM"}, which does not say
 * that the fix is the {@code replication} connection parameter.
 */
public final class WalSenderCommands {
    private WalSenderCommands() {}

    /** The walsender-only commands (SHOW is also SQL, so it is not among them). */
    private static final String[] COMMANDS = {
            "IDENTIFY_SYSTEM", "TIMELINE_HISTORY", "CREATE_REPLICATION_SLOT", "READ_REPLICATION_SLOT",
            "ALTER_REPLICATION_SLOT", "DROP_REPLICATION_SLOT", "START_REPLICATION", "BASE_BACKUP", "UPLOAD_MANIFEST"};

    /**
     * Refuses {@code command} unless {@code mode} opens a walsender; a {@code logical} command
     * (a logical slot or START_REPLICATION ... LOGICAL) also needs a database, i.e.
     * {@code replication=database}.
     *
     * @param mode    the connection's replication mode
     * @param command the command's name, for the message
     * @param logical whether the command needs a logical (database) walsender
     * @throws PgClientException of kind {@link PgClientException.Kind#INVALID_ARGUMENT} naming the fix
     */
    public static void require(ReplicationMode mode, String command, boolean logical) {
        if (mode == ReplicationMode.NONE) {
            throw new PgClientException(PgClientException.Kind.INVALID_ARGUMENT, command
                    + " is a replication command, but this connection is a plain one (no replication parameter):"
                    + " connect with replication=database (URL: ...?replication=database; builder:"
                    + " .replication(ReplicationMode.DATABASE))" + (logical ? "" : ", or replication=true for physical replication"));
        }
        if (logical && mode == ReplicationMode.PHYSICAL) {
            throw new PgClientException(PgClientException.Kind.INVALID_ARGUMENT, command
                    + " is logical and needs a database, but this connection has replication=true (physical only):"
                    + " connect with replication=database");
        }
    }

    /**
     * The walsender command {@code sql} starts with (after white space, any case), or null: lets a
     * raw query on a plain connection be refused like the typed methods.
     *
     * @param sql a statement
     * @return the command's name, or null when {@code sql} is not a walsender command
     */
    public static String commandOf(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n && Character.isWhitespace(sql.charAt(i))) i++;
        for (String c : COMMANDS) {
            int end = i + c.length();
            if (sql.regionMatches(true, i, c, 0, c.length())
                    && (end == n || !(Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_'))) {
                return c;
            }
        }
        return null;
    }

    /**
     * {@link #require} for a raw statement; statements that are not walsender commands pass. Only
     * plain connections are checked: telling a logical command from a physical one would need a
     * parser, and the server's own error on a replication=true connection is clear enough.
     *
     * @param mode the connection's replication mode
     * @param sql  the statement about to be sent
     * @throws PgClientException if {@code sql} is a walsender command and the connection a plain one
     */
    public static void requireFor(ReplicationMode mode, String sql) {
        if (mode != ReplicationMode.NONE) return;
        String command = commandOf(sql);
        if (command != null) require(mode, command, false);
    }
}
