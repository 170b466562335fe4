package io.pgrepl.flink.table;

import io.pgrepl.flink.PgreplDeserializer;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The SQL connector's RowData deserializer for the benchmark's table, with the type information the
 * planner gives it ({@link InternalTypeInfo}), so that the table path's per-row cost is measured in
 * the same DataStream harness as the other deserializers, without the planner's own operators. In
 * the connector's package because the deserializer is not public API.
 */
public final class BenchRowData {
    private BenchRowData() {}

    /** {@return the deserializer of {@code (id BIGINT, t STRING, n DECIMAL(20, 1), ts TIMESTAMP_LTZ(6), j STRING)}, changelog-mode 'all'} */
    public static PgreplDeserializer<RowData> deserializer(String database) {
        String[] names = {"id", "t", "n", "ts", "j"};
        LogicalType[] types = {new BigIntType(false), VarCharType.STRING_TYPE, new DecimalType(20, 1), new LocalZonedTimestampType(6),
                VarCharType.STRING_TYPE};
        return new RowDataDeserializer(names, types, List.of(), false, List.of("id"), database,
                InternalTypeInfo.of(RowType.of(types, names)));
    }
}
