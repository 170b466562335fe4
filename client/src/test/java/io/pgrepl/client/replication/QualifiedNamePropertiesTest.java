package io.pgrepl.client.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Table names read as PostgreSQL reads them: the expected names below are what {@code psql}
 * resolves for the same text (unquoted parts folded to lower case, quoted ones as written, a
 * doubled quote for a quote), and every name written canonically reads back to itself.
 */
class QualifiedNamePropertiesTest {
    @Provide
    Arbitrary<String> parts() {
        // Names a catalog may hold: any characters but NUL, dots, quotes, spaces and upper case included.
        return Arbitraries.strings().withChars("abcXYZ_09$.\" -éß€").ofMinLength(1).ofMaxLength(12);
    }

    @Property
    void canonicalSpellingReadsBack(@ForAll("parts") String schema, @ForAll("parts") String table) {
        QualifiedName q = new QualifiedName(schema, table);
        assertEquals(q, QualifiedName.parse(q.toString()));
        assertEquals(q, QualifiedName.parse(q.quoted()));
    }

    @Property
    void quotedSpellingIsExactAndFoldingOnlyTouchesUnquotedAsciiLetters(@ForAll("parts") String schema, @ForAll("parts") String table) {
        String quotedSchema = Identifiers.quoteIdentifier(schema);
        assertEquals(new QualifiedName(schema, table), QualifiedName.parse(quotedSchema + "." + Identifiers.quoteIdentifier(table)));
        // Debezium's reading keeps an unquoted part's case; PostgreSQL's folds it.
        assertEquals(QualifiedName.parse("ABC.\"T\"").schema(), "abc");
        assertEquals(QualifiedName.parseAsWritten("ABC.\"T\"").schema(), "ABC");
    }

    @Test
    void readsAsPostgresqlDoes() {
        assertEquals(new QualifiedName("sales", "Order-Items"), QualifiedName.parse("Sales.\"Order-Items\""));
        assertEquals(new QualifiedName("Sales", "Order-Items"), QualifiedName.parseAsWritten("Sales.\"Order-Items\""));
        assertEquals(new QualifiedName("Sales.Q1", "Order \"Items\""), QualifiedName.parse("\"Sales.Q1\".\"Order \"\"Items\"\"\""));
        assertEquals(new QualifiedName("public", "orders"), QualifiedName.parse("ORDERS"));
        assertEquals(new QualifiedName("public", "Orders"), QualifiedName.parse("\"Orders\""));
        assertEquals(new QualifiedName("ünï", "tåble$1"), QualifiedName.parse("ünï.tåble$1"));
        assertEquals(new QualifiedName("sales", "order_items"), QualifiedName.parse("sales.order_items"));
        assertEquals("public.orders", QualifiedName.parse("ORDERS").toString());
        assertEquals("\"Sales.Q1\".\"Order-Items\"", new QualifiedName("Sales.Q1", "Order-Items").toString());
        assertEquals("\"Sales\".\"1st\"", new QualifiedName("Sales", "1st").toString());
        assertEquals("sales.\"Order-Items\"", QualifiedName.parse("sales.\"Order-Items\"").toString());
    }

    @Test
    void refusesWhatIsNoName() {
        for (String bad : new String[] {"", ".", "a.", ".a", "a.b.c", "\"a", "\"\".t", "a b", "Order-Items", "a.\"b\"c", "1abc"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse(bad), bad);
            assertTrue(e.getMessage() != null && !e.getMessage().isEmpty(), bad);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QualifiedName.parse("sales.Order-Items"));
        assertTrue(e.getMessage().contains("\"Order-Items\""), e.getMessage());
    }
}
