package io.pgrepl.client.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SQL the snapshot sends, and the parsing of what the catalog returns (the server side is in the integration tests). */
class SnapshotCatalogTest {
    private static SnapshotTable table(String filter, boolean root, String... cols) {
        List<ColumnInfo> c = java.util.Arrays.stream(cols).map(n -> new ColumnInfo(0, n, 25, -1)).toList();
        return new SnapshotTable(new RelationInfo(1, "my schema", "T\"x", 'd', c), filter, root, 100, 0, true);
    }

    @Test
    void copyStatementQuotesAndCombinesFilterAndRange() {
        assertEquals("COPY (SELECT \"a\", \"b c\" FROM ONLY \"my schema\".\"T\"\"x\" WHERE ((v > 7)) AND ctid >= '(16,0)'::tid"
                        + " AND ctid < '(32,0)'::tid) TO STDOUT WITH (FORMAT binary)",
                SnapshotCatalog.copySql(table("(v > 7)", false, "a", "b c"), 16, 32, true));
        assertEquals("COPY (SELECT  FROM \"my schema\".\"T\"\"x\") TO STDOUT", SnapshotCatalog.copySql(table(null, true), 0, -1, false));
        assertEquals("COPY (SELECT \"a\" FROM ONLY \"my schema\".\"T\"\"x\" WHERE ctid >= '(4,0)'::tid) TO STDOUT",
                SnapshotCatalog.copySql(table(null, false, "a"), 4, -1, false), "the last range is open-ended");
    }

    @Test
    void textArraysAsTheServerPrintsThem() {
        assertEquals(List.of("a", "b c", "d\"e", "f,g"), SnapshotCatalog.textArray("{a,\"b c\",\"d\\\"e\",\"f,g\"}"));
        assertEquals(List.of(), SnapshotCatalog.textArray("{}"));
    }

    @Test
    void publicationNamesAreLiterals() {
        assertEquals("'it''s'", SnapshotCatalog.literal("it's"));
        assertThrows(IllegalArgumentException.class, () -> SnapshotCatalog.literal("a\0b"));
        assertEquals(true, SnapshotCatalog.tablesSql(List.of("p'1", "q"), 15).contains("IN ('p''1', 'q')"));
    }

    @Test
    void optionsAreChecked() {
        LogicalReplicationOptions s = LogicalReplicationOptions.builder("s").publications("p").build();
        SnapshotOptions o = SnapshotOptions.of(s);
        assertEquals(4, o.workers());
        assertThrows(IllegalArgumentException.class, () -> o.withWorkers(0));
        assertThrows(IllegalArgumentException.class, () -> o.withSlot(io.pgrepl.client.replication.CreateSlotOptions.logical("other", "pgoutput")));
    }
}
