package io.pgrepl.debezium.compat;

import java.lang.reflect.Method;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Ends a Debezium test's waits once pgrepl's connector has been failed for {@link #GRACE}, and fails
 * the test with that failure; a test that fails on its own after such a failure fails with it too, its own
 * failure as the cause. Debezium's tests wait (Awaitility, up to a minute each) for records or
 * for a streaming MBean that a refused configuration never brings, which would make a run of the
 * suite take hours; the grace leaves time to the tests that expect the failure and check it. The wait
 * ends through Awaitility's default fail-fast condition, which every {@code Awaitility.await()} picks
 * up. Registered for every test class by JUnit's extension auto-detection, active only in the pgrepl
 * runs ({@code debezium.compat.failfast}, seconds; 0 turns it off); Debezium's own connector never
 * records a failure here.
 */
public final class FailFast implements InvocationInterceptor {
    static final Duration GRACE = Duration.ofSeconds(Long.getLong("debezium.compat.failfast", 0));

    /** What a wait ended by the fail-fast condition fails with: pgrepl's failure, as the test's reason. */
    static final class ConnectorFailed extends AssertionError {
        ConnectorFailed(String message) {
            super(message);
        }
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext ctx) throws Throwable {
        watched(invocation);
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                            ExtensionContext ctx) throws Throwable {
        watched(invocation);
    }

    private static void watched(Invocation<Void> invocation) throws Throwable {
        ConnectorFailures.reset();
        if (GRACE.isZero()) {
            invocation.proceed();
            return;
        }
        Awaitility.setDefaultFailFastCondition(() -> {
            ConnectorFailures.Failure f = ConnectorFailures.first();
            if (f != null && System.nanoTime() - f.atNanos() > GRACE.toNanos()) {
                throw new ConnectorFailed("pgrepl's connector failed and the test still waited " + GRACE.toSeconds()
                        + " s later: " + f.message());
            }
        });
        try {
            invocation.proceed();
        } catch (Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof ConnectorFailed failed) {
                    if (failed != t) failed.addSuppressed(t);
                    throw failed;
                }
            }
            // A test that checked at once (assertConnectorIsRunning) fails on its own; its reason is pgrepl's.
            ConnectorFailures.Failure f = ConnectorFailures.first();
            if (f == null) throw t;
            ConnectorFailed failed = new ConnectorFailed("pgrepl's connector failed: " + f.message());
            failed.initCause(t);
            throw failed;
        } finally {
            Awaitility.reset();
        }
    }
}
