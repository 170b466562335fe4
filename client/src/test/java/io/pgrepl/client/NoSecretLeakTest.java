package io.pgrepl.client;

import io.pgrepl.testkit.secrets.SecretLeakCheck;

/**
 * This module's run of the test-password leak check (it runs after every other test class): the
 * passwords of {@link ClientTestSecrets} must appear nowhere in what client's tests printed (logs,
 * stack traces) or in a failed test's exception.
 */
class NoSecretLeakTest extends SecretLeakCheck {}
