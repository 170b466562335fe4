package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --file} after a run killed mid-write: a partial last line is cut before anything is appended. */
class OutputFileTest {

    private static String appendAfter(Path f, String before, String appended, AtomicLong cut) throws Exception {
        Files.writeString(f, before, StandardCharsets.UTF_8);
        cut.set(-1);
        try (Output o = Output.file(f, false, cut::set)) {
            o.stream().write(appended.getBytes(StandardCharsets.UTF_8));
            o.flush();
        }
        return Files.readString(f, StandardCharsets.UTF_8);
    }

    @Test
    void aPartialLastLineIsCut(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("out.jsonl");
        AtomicLong cut = new AtomicLong();
        assertEquals("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n", appendAfter(f, "{\"a\":1}\n{\"b\":2}\n{\"c\"", "{\"c\":3}\n", cut));
        assertEquals(4, cut.get(), "the cut was reported");
        // a long partial line, beyond one read of the tail
        String longPart = "{\"x\":\"" + "y".repeat(20_000);
        assertEquals("{\"a\":1}\n{\"z\":0}\n", appendAfter(f, "{\"a\":1}\n" + longPart, "{\"z\":0}\n", cut));
        assertEquals(longPart.length(), cut.get());
        assertEquals("{\"z\":0}\n", appendAfter(f, "{\"par", "{\"z\":0}\n", cut), "no newline at all: all of it was partial");
        assertEquals(5, cut.get());
    }

    @Test
    void wholeLinesAndEmptyFilesStay(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("out.jsonl");
        AtomicLong cut = new AtomicLong();
        assertEquals("{\"a\":1}\n{\"b\":2}\n", appendAfter(f, "{\"a\":1}\n", "{\"b\":2}\n", cut));
        assertEquals(-1, cut.get(), "nothing cut, nothing said");
        assertEquals("{\"b\":2}\n", appendAfter(f, "", "{\"b\":2}\n", cut));
        assertEquals(-1, cut.get());
    }
}
