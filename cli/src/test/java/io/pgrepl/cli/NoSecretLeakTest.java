package io.pgrepl.cli;

import io.pgrepl.testkit.secrets.SecretLeakCheck;

/** This module's run of the test-password leak check (it runs after every other test class). */
class NoSecretLeakTest extends SecretLeakCheck {}
