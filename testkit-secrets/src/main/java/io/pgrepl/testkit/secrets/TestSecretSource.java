package io.pgrepl.testkit.secrets;

import java.util.List;

/**
 * Passwords a module's tests use, found through {@code META-INF/services}: the test kit lists its
 * servers' role passwords, a test module its fakes'. Each at least 8 characters, so that a match
 * in what the suite printed is a leak, not a word.
 */
public interface TestSecretSource {
    /** The passwords to look for. */
    List<String> passwords();
}
