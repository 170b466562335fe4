package io.pgrepl.client.stream;

import io.pgrepl.client.PgException;
import io.pgrepl.codec.backend.ErrorFields;
import java.util.List;

/**
 * PostgreSQL 18's pgoutput no longer fails when a publication named in publication_names is
 * missing at the decoded point of the WAL (dropped while streaming, or created after that point):
 * LoadPublications only raises a WARNING (55000, {@code skipped loading publication "name"}) and
 * decoding goes on without it, so the changes it published are silently left out. The walsender
 * sends that WARNING as a NoticeResponse on the replication connection; a stream that owns its
 * connection turns it into the same non-transient {@link ReplicationPublicationException} that
 * 10-17 raise as an ERROR.
 */
final class SkippedPublicationWarning {
    private static final String OBJECT_NOT_IN_PREREQUISITE_STATE = "55000";

    private SkippedPublicationWarning() {}

    /**
     * Whether {@code notice} is pgoutput's warning about one of {@code publications}. The
     * SQLSTATE and the unlocalized severity decide; the (possibly translated) message must name
     * one of the stream's publications in double quotes, as the server formats it.
     */
    static boolean matches(ErrorFields notice, List<String> publications) {
        if (!OBJECT_NOT_IN_PREREQUISITE_STATE.equals(notice.sqlState())) return false;
        String severity = notice.get(ErrorFields.SEVERITY) != null ? notice.get(ErrorFields.SEVERITY) : notice.severity();
        if (!"WARNING".equals(severity)) return false;
        String message = notice.message();
        if (message == null) return false;
        for (String p : publications) {
            if (message.contains("\"" + p + "\"")) return true;
        }
        return false;
    }

    /** The typed end of a stream that got the warning: after copy began, not transient. */
    static ReplicationPublicationException error(ErrorFields notice) {
        return new ReplicationPublicationException(new PgException(notice), false);
    }
}
