package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Arguments echoed in CLI errors never show a connection string's password. */
class CliErrorsTest {
    private static final String SECRET = "Sup3rSecr3t";

    private static String stderrOf(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, rc);
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void unknownCommandThatIsAUrlIsNotEchoed() {
        String err = stderrOf("postgresql://alice:" + SECRET + "@db/x");
        assertFalse(err.contains(SECRET), err);
        assertTrue(err.contains("unknown command '(a connection URI, not shown)'"), err);
        err = stderrOf("host=db password=" + SECRET);
        assertFalse(err.contains(SECRET), err);
        assertTrue(err.contains("unknown command '(a connection string, not shown)'"), err);
        assertTrue(stderrOf("frobnicate").contains("unknown command 'frobnicate'"));
    }

    @Test
    void demoUnknownArgumentThatIsAUrlIsNotEchoed() {
        String err = stderrOf("demo", "postgres://bob:" + SECRET + "@h:5432/db");
        assertFalse(err.contains(SECRET), err);
        assertTrue(err.contains("unknown argument (a connection URI, not shown)"), err);
        err = stderrOf("demo", "dbname=x PASSWORD=" + SECRET);
        assertFalse(err.contains(SECRET), err);
    }

    @Test
    void otherArgumentsAreBoundedAndControlFree() {
        assertEquals("--bogus", CliErrors.shown("--bogus"));
        assertEquals("a?b", CliErrors.shown("a\nb"));
        assertEquals("x".repeat(64) + "...", CliErrors.shown("x".repeat(100)));
    }
}
