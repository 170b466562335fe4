package io.pgrepl.testkit.secrets;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Every password the test suite uses, so that {@link SecretLeakWatch} can look for them in what
 * the suite printed: those of every {@link TestSecretSource} on the class path (the test kit's
 * role passwords, a module's own fakes'), the watch's self-test password, and any added with
 * {@link #register}. They are long and distinctive so that a match is a leak, not a word.
 */
public final class TestSecrets {
    /** Logged once on purpose by {@link SecretLeakCheck}'s self-test; used nowhere else. */
    static final String SELF_TEST = "leak-watch-self-test-Tq8vN3";

    private static final Set<String> EXTRA = new CopyOnWriteArraySet<>();
    private static volatile List<String> fromSources;

    private TestSecrets() {}

    public static List<String> all() {
        List<String> sources = fromSources;
        if (sources == null) {
            List<String> l = new ArrayList<>();
            for (TestSecretSource s : ServiceLoader.load(TestSecretSource.class, TestSecrets.class.getClassLoader())) {
                for (String p : s.passwords()) l.add(checked(p));
            }
            fromSources = sources = List.copyOf(l);
        }
        List<String> l = new ArrayList<>(sources);
        l.add(SELF_TEST);
        l.addAll(EXTRA);
        return l;
    }

    /** Adds a password a module's tests use (at least 8 characters, so a match means something). */
    public static void register(String password) {
        EXTRA.add(checked(password));
    }

    private static String checked(String password) {
        if (password.length() < 8) throw new IllegalArgumentException("too short to scan for");
        return password;
    }
}
