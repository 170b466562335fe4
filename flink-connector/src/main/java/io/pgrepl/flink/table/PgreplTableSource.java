package io.pgrepl.flink.table;

import io.pgrepl.flink.PgreplSourceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;

/** A PostgreSQL table as a Flink changelog: the pgrepl source with RowData elements. */
final class PgreplTableSource implements ScanTableSource, SupportsReadingMetadata {
    private final PgreplSourceBuilder builder;
    private final String[] names;
    private final LogicalType[] types;
    private final boolean upsert;
    /** The primary key's columns (upsert mode: an update that changes them retracts the old key). */
    private final List<String> key;
    private final String database;
    private List<String> metadata = new ArrayList<>();
    private DataType producedType;

    PgreplTableSource(PgreplSourceBuilder builder, String[] names, LogicalType[] types, boolean upsert, List<String> key, String database,
                      DataType physical) {
        this.builder = builder;
        this.names = names;
        this.types = types;
        this.upsert = upsert;
        this.key = List.copyOf(key);
        this.database = database;
        this.producedType = physical;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return upsert ? ChangelogMode.upsert() : ChangelogMode.all();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        RowDataDeserializer d = new RowDataDeserializer(names, types, metadata, upsert, key, database,
                context.<RowData>createTypeInformation(producedType));
        return SourceProvider.of(builder.build(d));
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        return TableMetadata.all();
    }

    @Override
    public void applyReadableMetadata(List<String> keys, DataType producedDataType) {
        this.metadata = new ArrayList<>(keys);
        this.producedType = producedDataType;
    }

    @Override
    public DynamicTableSource copy() {
        PgreplTableSource c = new PgreplTableSource(builder, names, types, upsert, key, database, producedType);
        c.metadata = new ArrayList<>(metadata);
        return c;
    }

    @Override
    public String asSummaryString() {
        return "pgrepl";
    }
}
