package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServerSpec;
import io.pgrepl.testkit.secrets.RunLast;
import io.pgrepl.testkit.secrets.SecretLeakWatch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.LoggerFactory;

/**
 * Runs after every other test class of this module ({@link RunLast}): no test password appeared
 * in anything the module's tests printed (logs, stack traces), in a failed test's exception, or
 * in the log of a test-kit server (see {@link SecretLeakWatch}).
 */
@RunLast
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NoSecretLeakTest {
    @Test
    @Order(1)
    void theWatchSeesAPasswordLoggedThroughSlf4j() {
        assertTrue(SecretLeakWatch.installed(), "the watch is registered for this module");
        List<String> before = SecretLeakWatch.leaks();
        LoggerFactory.getLogger(NoSecretLeakTest.class).warn("self-test of the leak watch: {}",
                PgServerSpec.REPLICATION_PASSWORD);
        List<String> found = new ArrayList<>(SecretLeakWatch.leaks());
        found.removeAll(before);
        assertEquals(1, found.size(), "the logged password was seen: " + found);
        SecretLeakWatch.forget(found);
    }

    @Test
    @Order(2)
    void noTestPasswordInWhatTheSuitePrinted() {
        assertEquals(List.of(), SecretLeakWatch.leaks());
    }
}
