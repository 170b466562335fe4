package io.pgrepl.flink.table;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;

/** The metadata columns a table may read ({@code METADATA FROM 'key' VIRTUAL}); the first five as Flink CDC names them. */
final class TableMetadata {
    static final String TABLE_NAME = "table_name";
    static final String SCHEMA_NAME = "schema_name";
    static final String DATABASE_NAME = "database_name";
    /** The commit time; 0 (the epoch) for rows read by the snapshot. */
    static final String OP_TS = "op_ts";
    static final String ROW_KIND = "row_kind";
    /** The commit LSN as PostgreSQL prints it; NULL for rows read by the snapshot. */
    static final String LSN = "lsn";

    private TableMetadata() {}

    static Map<String, DataType> all() {
        Map<String, DataType> m = new LinkedHashMap<>();
        m.put(TABLE_NAME, DataTypes.STRING().notNull());
        m.put(SCHEMA_NAME, DataTypes.STRING().notNull());
        m.put(DATABASE_NAME, DataTypes.STRING().notNull());
        m.put(OP_TS, DataTypes.TIMESTAMP_LTZ(3).notNull());
        m.put(ROW_KIND, DataTypes.STRING().notNull());
        m.put(LSN, DataTypes.STRING().nullable());
        return m;
    }
}
