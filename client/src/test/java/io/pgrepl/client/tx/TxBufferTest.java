package io.pgrepl.client.tx;

import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.stream.Stream;

import static io.pgrepl.client.tx.Recs.insert;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TxBufferTest {
    @TempDir
    Path dir;

    /** Descriptors of this process open on {@code file} (Linux /proc; -1 elsewhere). */
    private static long descriptorsOn(Path file) throws Exception {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) return -1;
        String target = file.toAbsolutePath().toString();
        try (Stream<Path> s = Files.list(fds)) {
            return s.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).toString().startsWith(target);
                } catch (Exception e) {
                    return false; // closed meanwhile
                }
            }).count();
        }
    }

    @Test
    void deleteClosesPartiallyReadSpillIterators() throws Exception {
        TxBuffer b = new TxBuffer(7);
        for (int i = 0; i < 100; i++) b.append(insert(0, i, "v"));
        b.spill(dir);
        b.seal();
        Path file = b.file();
        Iterator<PgOutputRecord> it = b.iterator();
        it.next();
        Iterator<PgOutputRecord> it2 = b.iterator();
        it2.next();
        assertEquals(2, b.openReaders());
        long before = descriptorsOn(file);
        b.delete();
        assertEquals(0, b.openReaders(), "partial iterators closed by delete");
        assertFalse(Files.exists(file));
        if (before >= 0) {
            assertEquals(2, before);
            assertEquals(0, descriptorsOn(file), "no descriptor left on the deleted file");
        }
        assertThrows(IllegalStateException.class, it::hasNext);
    }

    @Test
    void fullIterationReleasesItsReader() {
        TxBuffer b = new TxBuffer(7);
        b.append(insert(0, 1, "v"));
        b.spill(dir);
        b.seal();
        Iterator<PgOutputRecord> it = b.iterator();
        it.next();
        assertFalse(it.hasNext());
        assertEquals(0, b.openReaders());
        b.delete();
    }
}
