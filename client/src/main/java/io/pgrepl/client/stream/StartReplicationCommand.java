package io.pgrepl.client.stream;

import io.pgrepl.client.PgClientException;
import io.pgrepl.codec.Lsn;
import java.util.List;

/**
 * The text of START_REPLICATION SLOT ... LOGICAL for one server: pgoutput's options (the protocol
 * docs' logical streaming replication parameters), each checked against the server version and
 * the chosen proto_version before anything is sent, and quoted as the replication grammar reads
 * them. Apart from {@link LogicalReplicationOptions}, which holds what the application asked for,
 * because this is what one server makes of it.
 */
final class StartReplicationCommand {
    private StartReplicationCommand() {}

    /** {@return the command for a server of {@code serverVersionNum}; see {@link LogicalReplicationOptions#startCommand}} */
    static String text(LogicalReplicationOptions o, int serverVersionNum) {
        if (serverVersionNum <= 0) {
            throw new PgClientException(PgClientException.Kind.PROTOCOL, "server did not report server_version");
        }
        int major = serverVersionNum / 10000;
        if (major < 10) throw unsupported("logical replication with pgoutput needs PostgreSQL 10 or later, server is " + major);
        int max = LogicalReplicationOptions.maxProtoVersion(serverVersionNum);
        int proto = o.effectiveProtoVersion(serverVersionNum);
        if (proto > max) {
            throw unsupported("proto_version " + proto + " needs PostgreSQL " + minMajorForProto(proto)
                    + " or later; server " + major + " supports up to " + max);
        }
        StringBuilder sb = new StringBuilder(128);
        sb.append("START_REPLICATION SLOT ").append(o.slotName()).append(" LOGICAL ").append(Lsn.format(o.startLsn()));
        sb.append(" (proto_version '").append(proto).append('\'');
        sb.append(", publication_names ").append(quoteValue(publicationNamesValue(o.publicationNames())));
        Boolean binary = o.binary();
        if (binary != null) {
            need(major, 14, "binary");
            sb.append(", binary '").append(binary ? "true" : "false").append('\'');
        }
        Boolean messages = o.messages();
        if (messages != null) {
            need(major, 14, "messages");
            sb.append(", messages '").append(messages ? "true" : "false").append('\'');
        }
        StreamingMode s = o.effectiveStreaming(serverVersionNum);
        if (s != null) {
            switch (s) {
                case OFF -> {
                    need(major, 14, "streaming");
                    sb.append(", streaming 'off'");
                }
                case ON -> {
                    need(major, 14, "streaming");
                    needProto(proto, 2, "streaming=on");
                    sb.append(", streaming 'on'");
                }
                case PARALLEL -> {
                    need(major, 16, "streaming=parallel");
                    needProto(proto, 4, "streaming=parallel");
                    sb.append(", streaming 'parallel'");
                }
                default -> throw new IllegalStateException();
            }
        }
        Boolean twoPhase = o.twoPhase();
        if (twoPhase != null) {
            need(major, 15, "two_phase");
            if (twoPhase) needProto(proto, 3, "two_phase");
            sb.append(", two_phase '").append(twoPhase ? "true" : "false").append('\'');
        }
        OriginFilter origin = o.origin();
        if (origin != null) {
            need(major, 16, "origin");
            sb.append(", origin '").append(origin == OriginFilter.NONE ? "none" : "any").append('\'');
        }
        return sb.append(')').toString();
    }

    /**
     * publication_names as the server's SplitIdentifierString reads it: comma-separated
     * identifiers; a name that is not a plain lower-case identifier is double-quoted with embedded
     * double quotes doubled (so case and commas survive).
     */
    static String publicationNamesValue(List<String> names) {
        StringBuilder sb = new StringBuilder();
        for (String n : names) {
            if (n == null || n.isEmpty()) throw LogicalReplicationOptions.invalid("empty publication name");
            if (n.indexOf('\0') >= 0) throw LogicalReplicationOptions.invalid("publication name contains NUL");
            if (sb.length() > 0) sb.append(',');
            sb.append(plainIdentifier(n) ? n : '"' + n.replace("\"", "\"\"") + '"');
        }
        return sb.toString();
    }

    private static boolean plainIdentifier(String n) {
        char c0 = n.charAt(0);
        if (!((c0 >= 'a' && c0 <= 'z') || c0 == '_')) return false;
        for (int i = 1; i < n.length(); i++) {
            char c = n.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$')) return false;
        }
        return true;
    }

    /** A replication-grammar string constant: single quotes doubled, no backslash escapes (the scanner has none). */
    static String quoteValue(String v) {
        return '\'' + v.replace("'", "''") + '\'';
    }

    private static int minMajorForProto(int proto) {
        return switch (proto) {
            case 1 -> 10;
            case 2 -> 14;
            case 3 -> 15;
            default -> 16;
        };
    }

    private static void need(int major, int min, String option) {
        if (major < min) throw unsupported(option + " needs PostgreSQL " + min + " or later; server is " + major);
    }

    private static void needProto(int proto, int min, String option) {
        if (proto < min) throw unsupported(option + " needs proto_version " + min + " or later; chosen proto_version is " + proto);
    }

    private static PgClientException unsupported(String msg) {
        return new PgClientException(PgClientException.Kind.UNSUPPORTED_BY_SERVER, msg);
    }
}
