package io.pgrepl.testkit.secrets;

import io.pgrepl.testkit.PgServerSpec;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Every password the test suite uses, so that {@link SecretLeakWatch} can look for them in what
 * the suite printed. The test kit's role passwords are here; a module adds its own fakes' with
 * {@link #register}. They are long and distinctive so that a match is a leak, not a word.
 */
public final class TestSecrets {
    private static final Set<String> EXTRA = new CopyOnWriteArraySet<>();

    private TestSecrets() {}

    public static List<String> all() {
        List<String> l = new java.util.ArrayList<>(List.of(PgServerSpec.DEFAULT_SUPERUSER_PASSWORD,
                PgServerSpec.REPLICATION_PASSWORD, PgServerSpec.PLAIN_PASSWORD));
        l.addAll(EXTRA);
        return l;
    }

    /** Adds a password a module's tests use (at least 8 characters, so a match means something). */
    public static void register(String password) {
        if (password.length() < 8) throw new IllegalArgumentException("too short to scan for");
        EXTRA.add(password);
    }
}
