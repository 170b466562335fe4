package io.pgrepl.client.stream;

import io.pgrepl.client.PgClientException;
import io.pgrepl.codec.Lsn;

/**
 * A reconnect reached another server of a multi-host configuration, and that server does not
 * have the slot the stream had been using: a failover to a standby that did not have it. Logical slots survive a failover only as
 * failover slots synchronised to the standby, which needs PostgreSQL 17 or later. Not
 * retryable: the changes after the last acknowledged LSN cannot come from this server's slots.
 */
public final class SlotLostAfterFailoverException extends PgClientException {
    private static final long serialVersionUID = 1L;

    /** The slot the stream had been using. */
    private final String slotName;
    /** host:port of the server without the slot. */
    private final String server;

    SlotLostAfterFailoverException(String slotName, String server, String previous, int serverMajor, long acknowledged,
                                   ReplicationServerErrorException cause) {
        super(Kind.UNSUPPORTED_BY_SERVER, "replication slot \"" + slotName + "\" is missing on " + server
                + " (PostgreSQL " + serverMajor + "), where the stream reconnected after streaming from " + previous + ":"
                + " the slot did not survive a failover. " + (serverMajor < 17
                        ? "Logical slots survive failover only from PostgreSQL 17, as failover slots synchronised to the standby."
                        : "Create it with FAILOVER, and set sync_replication_slots=on on the standby and"
                                + " synchronized_standby_slots on the primary, so that the standby keeps a synchronised copy.")
                + " Changes after the last acknowledged LSN " + Lsn.format(acknowledged)
                + " cannot be read from this server; nothing after it was confirmed.", cause);
        this.slotName = slotName;
        this.server = server;
    }

    /** {@return the slot the stream had been using} */
    public String slotName() {
        return slotName;
    }

    /** {@return host:port of the server without the slot} */
    public String server() {
        return server;
    }
}
