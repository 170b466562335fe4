package io.pgrepl.client.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PgPassTest {
    private static final String FILE = String.join("\n",
            "# comment:line:is:ignored:pw",
            "",
            "db.example.com:5432:orders:alice:first",
            "db.example.com:*:*:alice:second",
            "*:5433:*:*:wild",
            "we\\:ird:5432:d\\\\b:bob:pa\\:ss\\\\word:ignored-after-colon",
            "short:line",
            "h:5432:d:emptypw:",
            "*\\*:5432:*:*:escaped-star",
            "crlf:5432:d:u:withcr\r",
            "");

    private final PgPass pgpass = PgPass.parse(FILE);

    @Test
    void firstMatchWins() {
        assertEquals(Optional.of("first"), pgpass.lookup("db.example.com", "5432", "orders", "alice"));
        assertEquals(Optional.of("second"), pgpass.lookup("db.example.com", "5432", "other", "alice"));
        assertEquals(Optional.of("second"), pgpass.lookup("db.example.com", "6000", "other", "alice"));
    }

    @Test
    void wildcards() {
        assertEquals(Optional.of("wild"), pgpass.lookup("anything", "5433", "x", "y"));
        assertEquals(Optional.empty(), pgpass.lookup("anything", "5434", "x", "y"));
        // "\*" is a literal star, not a wildcard
        assertEquals(Optional.of("escaped-star"), pgpass.lookup("**", "5432", "x", "y"));
        assertEquals(Optional.empty(), pgpass.lookup("zz", "5432", "x", "y"));
    }

    @Test
    void escapes() {
        assertEquals(Optional.of("pa:ss\\word"), pgpass.lookup("we:ird", "5432", "d\\b", "bob"));
    }

    @Test
    void portIsComparedAsText() {
        assertEquals(Optional.empty(), pgpass.lookup("db.example.com", "05432", "orders", "bob"));
    }

    @Test
    void emptyPasswordCountsAsNone() {
        assertEquals(Optional.empty(), pgpass.lookup("h", "5432", "d", "emptypw"));
    }

    @Test
    void crlfLinesAndMalformedLines() {
        assertEquals(Optional.of("withcr"), pgpass.lookup("crlf", "5432", "d", "u"));
        assertEquals(7, pgpass.size());
    }

    @Test
    void fileWithGroupOrWorldAccessIsIgnored(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pgpass");
        Files.writeString(file, "*:*:*:*:pw\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertEquals(Optional.of("pw"), PgPass.load(file).flatMap(p -> p.lookup("h", "1", "d", "u")));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertTrue(PgPass.load(file).isEmpty());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-----w-"));
        assertTrue(PgPass.load(file).isEmpty());
    }

    @Test
    void missingFileAndDirectoryAreIgnored(@TempDir Path dir) throws Exception {
        assertTrue(PgPass.load(dir.resolve("absent")).isEmpty());
        assertTrue(PgPass.load(dir).isEmpty());
    }
}
