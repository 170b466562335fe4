package io.pgrepl.client;

import io.pgrepl.testkit.secrets.TestSecretSource;
import java.util.List;

/**
 * The passwords client's tests hand to the code under test (fake servers' users, connection
 * strings whose errors must not echo them). Listed for the leak watch in
 * {@code META-INF/services}; a test adding a password of 8+ characters lists it here.
 */
public final class ClientTestSecrets implements TestSecretSource {
    @Override
    public List<String> passwords() {
        return List.of("pw-secret", "correct horse battery staple", "S3cr3t-Pw", "s3cr3t-Pa55", "TopSecretKeyPass");
    }
}
