package io.pgrepl.client.stream;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.PgException;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catalog questions a replication connection (replication=database accepts plain SQL on 10+)
 * asks around START_REPLICATION, where the walsender's own answer is late or vague.
 */
final class SlotChecks {
    private static final Logger log = LoggerFactory.getLogger(SlotChecks.class);

    private SlotChecks() {}

    /**
     * Fails with {@link ReplicationPublicationException} (the server's own 42704) when a
     * publication does not exist. pg_get_publication_tables raises it on every major, where
     * PostgreSQL 18's walsender would only warn and stream on without it. Any other failure of
     * the check is left to START_REPLICATION to report.
     */
    static CompletionStage<Void> publicationsExist(PgConnection conn, List<String> publications) {
        StringBuilder sql = new StringBuilder();
        for (String p : publications) {
            sql.append("SELECT 1 FROM pg_get_publication_tables(").append(literal(p)).append(") LIMIT 1;");
        }
        return conn.simpleQuery(sql.toString()).handle((r, e) -> {
            if (e == null) return null;
            Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (c instanceof PgException pe && ReplicationServerErrorException.UNDEFINED_OBJECT.equals(pe.sqlState())) {
                throw new CompletionException(new ReplicationPublicationException(pe, true));
            }
            if (c instanceof PgException pe) {
                log.debug("publication check failed ({}); START_REPLICATION decides", pe.sqlState());
                return null;
            }
            throw e instanceof CompletionException ce ? ce : new CompletionException(e);
        });
    }

    /**
     * Why a slot START_REPLICATION refused with 55000 cannot be used: INVALIDATED with the
     * server's reason when the catalog says so (17+: invalidation_reason; 13-16: wal_status
     * 'lost', which only WAL removal causes for a primary's slot; 16 sets conflicting for every
     * invalidated logical slot, so it names a conflict only on a standby), else
     * {@code refused} unchanged. Never fails.
     */
    static CompletionStage<ReplicationSlotException> explain(PgConnection conn, String slot, ReplicationSlotException refused) {
        int major = conn.serverMajor();
        if (major < 13) return CompletableFuture.completedFuture(refused);
        String reason = major >= 17 ? "invalidation_reason" : major == 16 ? "CASE WHEN conflicting AND pg_is_in_recovery() THEN 'conflicting' END" : "NULL";
        String sql = "SELECT wal_status, " + reason + " FROM pg_replication_slots WHERE slot_name = " + literal(slot);
        return conn.query(sql).handle((QueryResult r, Throwable e) -> {
            if (e != null || r.rows().isEmpty()) return fromDetail(refused);
            Row row = r.rows().get(0);
            if (!row.isNull(1)) return refused.invalidated(row.get(1));
            if ("lost".equals(row.get(0))) return refused.invalidated("wal_removed");
            return fromDetail(refused);
        });
    }

    /**
     * The server's DETAIL when the catalog cannot be read: 17+ names the invalidation_reason
     * ({@code ... invalidated due to "rows_removed".}), 16 says "conflicting with recovery".
     */
    static ReplicationSlotException fromDetail(ReplicationSlotException refused) {
        String detail = refused.serverError().detail();
        if (detail == null) return refused;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("invalidated due to \"([a-z_]+)\"").matcher(detail);
        if (m.find()) return refused.invalidated(m.group(1));
        if (detail.contains("conflicting with recovery")) return refused.invalidated("conflicting");
        return refused;
    }

    /** A standard-conforming string literal (standard_conforming_strings is on since 9.1). */
    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
