package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.secrets.TestSecrets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak watch (its own module, no test-kit types) finds the test kit's role passwords through META-INF/services. */
class TestKitSecretsTest {
    @Test
    void theWatchLooksForEveryRolePassword() {
        List<String> all = TestSecrets.all();
        for (String pw : List.of(PgServerSpec.DEFAULT_SUPERUSER_PASSWORD, PgServerSpec.REPLICATION_PASSWORD,
                PgServerSpec.PLAIN_PASSWORD)) {
            assertTrue(all.contains(pw), "a role password is scanned for (" + all.size() + " passwords listed)");
        }
    }
}
