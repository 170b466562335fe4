package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.BoundedWait;
import io.pgrepl.kafka.connect.TableFilter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.errors.ConnectException;

/** What a starting task checks and reads for incremental snapshots (on its replication connection). */
public final class IncrementalSetup {
    private static final Set<String> SIGNAL_COLUMNS = Set.of("id", "type", "data");

    private IncrementalSetup() {}

    /** {@code schema.table} split and unquoted; without a schema, {@code public}. */
    public static String[] split(String table) {
        int dot = table.indexOf('.');
        String schema = dot < 0 ? "public" : table.substring(0, dot);
        String name = dot < 0 ? table : table.substring(dot + 1);
        return new String[] {unquote(schema), unquote(name)};
    }

    private static String unquote(String s) {
        return s.length() > 1 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1).replace("\"\"", "\"") : s;
    }

    /**
     * Fails clearly unless signal.data.collection exists with Debezium's columns and is in the
     * publication: a signal table the stream does not carry would ignore every signal silently.
     */
    public static void checkSignalTable(PgConnection c, PgreplConnectorConfig config) {
        String table = IncrementalSettings.signalTable(config);
        if (table == null) return;
        String[] st = split(table);
        String key = IncrementalSettings.SIGNAL_DATA_COLLECTION + "=" + table;
        List<Row> cols = BoundedWait.await(c.query("SELECT a.attname FROM pg_catalog.pg_attribute a"
                + " JOIN pg_catalog.pg_class r ON r.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace"
                + " WHERE n.nspname = " + Identifiers.quoteLiteral(st[0]) + " AND r.relname = " + Identifiers.quoteLiteral(st[1])
                + " AND a.attnum > 0 AND NOT a.attisdropped"), config, "reading the signal table's columns").rows();
        if (cols.isEmpty()) {
            throw new ConnectException(key + ": no such table. Create it in Debezium's shape: CREATE TABLE " + table
                    + " (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048)), and add it to publication "
                    + config.publicationName());
        }
        Set<String> have = new HashSet<>();
        for (Row r : cols) have.add(r.get(0));
        if (!have.containsAll(SIGNAL_COLUMNS)) {
            throw new ConnectException(key + " has columns " + have + "; a signal table needs Debezium's id, type and data");
        }
        boolean published = !BoundedWait.await(c.query("SELECT 1 FROM pg_catalog.pg_publication_tables WHERE pubname = "
                + Identifiers.quoteLiteral(config.publicationName()) + " AND schemaname = " + Identifiers.quoteLiteral(st[0])
                + " AND tablename = " + Identifiers.quoteLiteral(st[1])), config, "checking the signal table's publication").rows().isEmpty();
        if (!published) {
            throw new ConnectException(key + " is not in publication " + config.publicationName() + ", so its signals would"
                    + " never reach the connector: ALTER PUBLICATION " + Identifiers.quoteIdentifier(config.publicationName())
                    + " ADD TABLE " + Identifiers.quoteIdentifier(st[0]) + "." + Identifiers.quoteIdentifier(st[1]));
        }
    }

    /** Plain where PostgreSQL would not fold or split it (so notifications name tables as signals do), else quoted. */
    private static String name(String identifier) {
        return PLAIN.matcher(identifier).matches() ? identifier : Identifiers.quoteIdentifier(identifier);
    }

    private static final java.util.regex.Pattern PLAIN = java.util.regex.Pattern.compile("[a-z_][a-z0-9_]*");

    /**
     * The tables an incremental initial load reads: those of the publication that the table filter
     * lets through, without the signal table; {@code schema.table}, quoted where needed.
     */
    public static List<String> initialTables(PgConnection c, PgreplConnectorConfig config) {
        TableFilter f = config.tableFilter();
        String signal = IncrementalSettings.signalTable(config);
        String[] s = signal == null ? null : split(signal);
        List<String> out = new ArrayList<>();
        for (Row r : BoundedWait.await(c.query("SELECT schemaname, tablename FROM pg_catalog.pg_publication_tables WHERE pubname = "
                + Identifiers.quoteLiteral(config.publicationName()) + " ORDER BY 1, 2"), config, "listing the publication's tables").rows()) {
            String schema = r.get(0);
            String name = r.get(1);
            if (s != null && s[0].equals(schema) && s[1].equals(name)) continue;
            if (f.test(schema, name)) out.add(name(schema) + "." + name(name));
        }
        return out;
    }
}
