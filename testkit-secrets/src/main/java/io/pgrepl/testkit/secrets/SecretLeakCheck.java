package io.pgrepl.testkit.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.LoggerFactory;

/**
 * The leak check a module runs by extending this class in its tests (with
 * {@link RunLastOrderer} set in its {@code junit-platform.properties}): after every other test
 * class ({@link RunLast}), no test password appeared in anything the module's tests printed
 * (logs, stack traces), in a failed test's exception, or in the log of a test-kit server (see
 * {@link SecretLeakWatch}). The first test proves the watch is live by logging one itself.
 */
@RunLast
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class SecretLeakCheck {
    /** For subclasses, one per test module. */
    protected SecretLeakCheck() {}

    /** Logs a test password once and expects the watch to report exactly that. */
    @Test
    @Order(1)
    public void theWatchSeesAPasswordLoggedThroughSlf4j() {
        assertTrue(SecretLeakWatch.installed(), "the watch is registered for this module");
        List<String> before = SecretLeakWatch.leaks();
        LoggerFactory.getLogger(getClass()).warn("self-test of the leak watch: {}", TestSecrets.SELF_TEST);
        List<String> found = new ArrayList<>(SecretLeakWatch.leaks());
        found.removeAll(before);
        assertEquals(1, found.size(), "the logged password was seen: " + found);
        SecretLeakWatch.forget(found);
    }

    /** Nothing else leaked. */
    @Test
    @Order(2)
    public void noTestPasswordInWhatTheSuitePrinted() {
        assertEquals(List.of(), SecretLeakWatch.leaks());
    }
}
