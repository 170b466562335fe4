package io.pgrepl.client.snapshot.incremental;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanCatalogTest {

    @Test
    void estimateScalesReltuplesToTheCurrentSize() {
        // 1000 tuples on 10 pages at the last ANALYZE; the relation has 20 pages of 8 KiB now.
        assertEquals(2000.0, PlanCatalog.estimate(1000, 10, 20 * 8192, 8192, 18, 40));
        // 14+: 0 tuples is known empty (relpages 0); the table has grown since, so its size decides.
        // (8192 - 24) / (40 + 28) = 120 tuples a page, 3 pages.
        assertEquals(360.0, PlanCatalog.estimate(0, 0, 3 * 8192, 8192, 18, 40));
    }

    @Test
    void unknownReltuplesFallsBackToTheSize() {
        assertEquals(360.0, PlanCatalog.estimate(-1, 0, 3 * 8192, 8192, 14, 40), "-1 is unknown on 14+");
        // CREATE INDEX on a never-vacuumed table sets relpages but leaves reltuples at -1 (14+).
        assertEquals(360.0, PlanCatalog.estimate(-1, 5, 3 * 8192, 8192, 18, 40));
        assertEquals(360.0, PlanCatalog.estimate(0, 0, 3 * 8192, 8192, 13, 40), "0 with relpages 0 is unknown before 14");
        assertEquals(0.0, PlanCatalog.estimate(-1, 0, 0, 8192, 18, 40), "an empty relation");
        // A partial last page counts as a page.
        assertEquals(120.0, PlanCatalog.estimate(-1, 0, 100, 8192, 18, 40));
    }

    @Test
    void noKeyMessageNamesTheIdentity() {
        assertEquals("table s.t has no primary key and its replica identity is nothing, so an incremental snapshot has no key"
                + " to read it by in chunks: name a surrogate key (columns that are unique and not null) for it, or read it with"
                + " the initial copy under the exported snapshot (the slot's snapshot at creation)", PlanCatalog.noKeyMessage("s.t", 'n'));
    }

    @Test
    void textArrayReadsQuotedEscapedAndNullElements() {
        assertEquals(Arrays.asList("a", "b c", "d\"e", "f\\g", null, "NULL", ""),
                PlanCatalog.textArray("{a,\"b c\",\"d\\\"e\",\"f\\\\g\",NULL,\"NULL\",\"\"}"));
        assertEquals(List.of(), PlanCatalog.textArray("{}"));
    }
}
