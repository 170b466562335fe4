package io.pgrepl.it.fault;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The server's own record of what was committed to a table: an AFTER ROW trigger writes every
 * insert, update and delete to {@code <table>_history} in the same transaction, so the history
 * holds exactly the committed changes, grouped by the transaction's xid. Expected values for the
 * fault tests come from here, never from the client under test.
 */
final class ChangeHistory {
    private ChangeHistory() {}

    /** Table {@code t(id int PRIMARY KEY, v text)}, its history table and trigger, and a publication of the table only. */
    static String schema(String t, String publication) {
        return "CREATE TABLE " + t + " (id int PRIMARY KEY, v text NOT NULL);"
                + "CREATE TABLE " + t + "_history (seq bigserial PRIMARY KEY, xid bigint NOT NULL, op char(1) NOT NULL,"
                + " id int NOT NULL, v text);"
                + "CREATE FUNCTION " + t + "_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " INSERT INTO " + t + "_history (xid, op, id, v) VALUES (txid_current() % 4294967296, substr(TG_OP, 1, 1),"
                + " CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END,"
                + " CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.v END);"
                + " RETURN NULL; END $$;"
                + "CREATE TRIGGER " + t + "_audit AFTER INSERT OR UPDATE OR DELETE ON " + t
                + " FOR EACH ROW EXECUTE PROCEDURE " + t + "_audit();"
                + "CREATE PUBLICATION " + publication + " FOR TABLE " + t + ";";
    }

    /** xid -> the transaction's changes in order, each {@code op:id:v} (v empty for deletes). */
    static Map<Long, List<String>> read(PgConnection sql, String t) throws Exception {
        QueryResult r = sql.query("SELECT xid, op, id, v FROM " + t + "_history ORDER BY seq")
                .toCompletableFuture().get(120, TimeUnit.SECONDS);
        Map<Long, List<String>> byXid = new LinkedHashMap<>();
        for (Row row : r.rows()) {
            String change = row.get(1) + ":" + row.get(2) + ":" + (row.isNull(3) ? "" : row.get(3));
            byXid.computeIfAbsent(Long.parseLong(row.get(0)), k -> new ArrayList<>()).add(change);
        }
        return byXid;
    }
}
