package io.pgrepl.client.snapshot.incremental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.replication.QualifiedName;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which tables a signal's data collections mean, and that every spelling of one table is that table. */
class SnapshotSignalNamesTest {
    private static final QualifiedName ITEMS = new QualifiedName("Sales", "Order-Items");
    private static final QualifiedName DOTTED = new QualifiedName("Sales.Q1", "Order-Items");
    private static final QualifiedName ORDERS = new QualifiedName("sales", "orders");
    private static final QualifiedName ORDERS2 = new QualifiedName("sales", "orders_2024");
    private static final Set<QualifiedName> ALL = Set.of(ITEMS, DOTTED, ORDERS, ORDERS2);

    @Test
    void namesResolveToOneTable() {
        // Debezium's documented spelling: schema as written, table quoted.
        assertEquals(List.of(ITEMS), SnapshotSignal.resolve("Sales.\"Order-Items\"", ALL, ALL));
        assertEquals(List.of(ITEMS), SnapshotSignal.resolve("\"Sales\".\"Order-Items\"", ALL, ALL));
        assertEquals(List.of(DOTTED), SnapshotSignal.resolve("\"Sales.Q1\".\"Order-Items\"", ALL, ALL));
        // PostgreSQL folds the unquoted name first.
        assertEquals(List.of(ORDERS), SnapshotSignal.resolve("SALES.Orders", ALL, ALL));
        // A regular expression over the published tables' unquoted names, as Debezium reads one.
        assertEquals(Set.of(ORDERS, ORDERS2), Set.copyOf(SnapshotSignal.resolve("sales\\.orders.*", ALL, ALL)));
        assertEquals(List.of(), SnapshotSignal.resolve("sales\\.orders.*", ALL, Set.of(ITEMS)));
        assertEquals(List.of(), SnapshotSignal.resolve("Sales.Missing", ALL, ALL));
        assertEquals(List.of(), SnapshotSignal.resolve("((a+)+)+b", ALL, ALL));
    }

    @Test
    void stopAndConditionsMatchEverySpelling() {
        SnapshotSignal s = new SnapshotSignal(SnapshotSignal.Type.STOP, List.of("Sales.\"Order-Items\"", "SALES.ORDERS"),
                Map.of("Sales.\"Order-Items\"", "id > 3"), "incremental", "1", null, null);
        assertTrue(s.matches(ITEMS));
        assertTrue(s.matches("\"Sales\".\"Order-Items\""));
        assertTrue(s.matches(ORDERS));
        assertTrue(s.matches("sales.orders"));
        assertFalse(s.matches(ORDERS2));
        assertFalse(s.matches(DOTTED));
        assertEquals("id > 3", s.conditionFor(ITEMS));
        assertEquals("id > 3", s.conditionFor("\"Sales\".\"Order-Items\""));
        assertNull(s.conditionFor(ORDERS));
    }

    @Test
    void oneSpellingPerTableInTheEngine() {
        assertEquals(Engine.canonical("\"sales\".\"orders\""), Engine.canonical("Sales.Orders"));
        assertEquals("sales.orders", Engine.canonical("SALES.\"orders\""));
        assertEquals("\"Sales.Q1\".\"Order-Items\"", Engine.canonical("\"Sales.Q1\".\"Order-Items\""));
        assertEquals("public.t", Engine.canonical("T"));
    }
}
