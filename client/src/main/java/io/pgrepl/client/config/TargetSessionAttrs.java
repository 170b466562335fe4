package io.pgrepl.client.config;

import java.util.Locale;

/**
 * libpq's {@code target_session_attrs}: which kind of server a multi-host connection accepts.
 * Each host is tried in turn; one whose session does not match is closed and the next is tried.
 */
public enum TargetSessionAttrs {
    /** Any server (libpq's default). */
    ANY,
    /** A session that accepts writes: not a hot standby, {@code default_transaction_read_only} off. */
    READ_WRITE,
    /** A read-only session: a hot standby, or {@code default_transaction_read_only} on. */
    READ_ONLY,
    /** A server that is not in recovery. */
    PRIMARY,
    /** A server in hot standby (recovery). */
    STANDBY,
    /** A standby if any host is one; else, in a second pass over the hosts, any server. */
    PREFER_STANDBY;

    /**
     * The libpq spelling, e.g. {@code read-write}.
     *
     * @return the keyword
     */
    public String keyword() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Reads the libpq keyword.
     *
     * @param value e.g. {@code read-write}
     * @return the setting
     * @throws ConnInfoException for any other value
     */
    public static TargetSessionAttrs parse(String value) {
        for (TargetSessionAttrs t : values()) {
            if (t.keyword().equals(value)) {
                return t;
            }
        }
        throw new ConnInfoException("invalid target_session_attrs value: \"" + value
                + "\" (expected any, read-write, read-only, primary, standby or prefer-standby)");
    }
}
