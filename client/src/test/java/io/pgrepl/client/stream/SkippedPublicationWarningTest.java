package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.codec.backend.ErrorFields;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which notices end a stream: PostgreSQL 18's pgoutput warning, as LoadPublications formats it
 * (src/backend/replication/pgoutput/pgoutput.c), for one of the stream's publications, and nothing else.
 */
class SkippedPublicationWarningTest {
    private static ErrorFields notice(String severity, String sqlState, String message) {
        return ErrorFields.of(Map.of('S', severity, 'V', severity, 'C', sqlState, 'M', message));
    }

    @Test
    void pgoutputsWarningForOneOfOurPublications() {
        ErrorFields n = notice("WARNING", "55000", "skipped loading publication \"orders_pub\"");
        assertTrue(SkippedPublicationWarning.matches(n, List.of("a_pub", "orders_pub")));
        ReplicationPublicationException e = SkippedPublicationWarning.error(n);
        assertEquals("55000", e.sqlState());
        assertFalse(e.isTransient());
        assertFalse(e.beforeCopy());
    }

    @Test
    void translatedMessageStillNamesThePublication() {
        // lc_messages translates the text, not the quoted name, the SQLSTATE or the 'V' severity
        ErrorFields n = ErrorFields.of(Map.of('S', "WARNUNG", 'V', "WARNING", 'C', "55000",
                'M', "Publikation \"orders_pub\" wurde beim Laden übersprungen"));
        assertTrue(SkippedPublicationWarning.matches(n, List.of("orders_pub")));
    }

    @Test
    void otherNoticesDoNotEndTheStream() {
        assertFalse(SkippedPublicationWarning.matches(
                notice("WARNING", "55000", "skipped loading publication \"other_pub\""), List.of("orders_pub")));
        assertFalse(SkippedPublicationWarning.matches(
                notice("NOTICE", "55000", "skipped loading publication \"orders_pub\""), List.of("orders_pub")));
        assertFalse(SkippedPublicationWarning.matches(
                notice("WARNING", "01000", "something about \"orders_pub\""), List.of("orders_pub")));
        assertFalse(SkippedPublicationWarning.matches(
                notice("WARNING", "55000", "skipped loading publication \"orders_pub_2\""), List.of("orders_pub")));
    }
}
