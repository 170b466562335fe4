package io.pgrepl.testkit.secrets;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Registered through {@code META-INF/services}: installs {@link SecretLeakWatch} when a JUnit
 * session opens (before any test prints) and scans the throwable of every failed test or container.
 */
public final class SecretLeakListener implements LauncherSessionListener, TestExecutionListener {
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        SecretLeakWatch.install();
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        result.getThrowable().ifPresent(t -> SecretLeakWatch.scan("failure of " + id.getDisplayName(), t));
    }
}
