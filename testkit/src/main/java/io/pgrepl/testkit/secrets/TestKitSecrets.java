package io.pgrepl.testkit.secrets;

import io.pgrepl.testkit.PgServerSpec;
import java.util.List;

/** The test kit's role passwords, for the leak watch of every module that uses the test kit. */
public final class TestKitSecrets implements TestSecretSource {
    @Override
    public List<String> passwords() {
        return List.of(PgServerSpec.DEFAULT_SUPERUSER_PASSWORD, PgServerSpec.REPLICATION_PASSWORD, PgServerSpec.PLAIN_PASSWORD);
    }
}
