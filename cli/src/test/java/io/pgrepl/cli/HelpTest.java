package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Help, version and argument errors: no server needed. */
class HelpTest {
    private static final List<String> STREAM_OPTIONS = List.of("--dbname", "-d,", "--slot", "-S,", "--publication", "-P,",
            "--format", "--file", "-f,", "--fsync-interval", "-F,", "--status-interval", "-s,", "--read-coalescing", "--create-slot",
            "--if-not-exists", "--temporary", "--snapshot", "--snapshot-workers", "--keep-slot-on-failure", "--proto-version", "--streaming", "--binary", "--messages", "--two-phase",
            "--origin", "--start-lsn", "--end-lsn", "-E,", "--idle-exit", "--reconnect", "--connect-deadline", "--plugin",
            "--verbose", "-v,", "--help");

    @Test
    void everyWayToAskForStreamHelpListsEveryOption() {
        for (String[] args : List.of(new String[] {"stream", "--help"}, new String[] {"help", "stream"},
                new String[] {"stream", "-h"}, new String[] {"stream", "postgresql://x/y", "--help"})) {
            Cli.Result r = run(args);
            assertEquals(0, r.rc(), String.join(" ", args));
            for (String o : STREAM_OPTIONS) assertTrue(r.out().contains(o), o + " in\n" + r.out());
            assertTrue(r.out().contains("(default: json)"), r.out());
            assertTrue(r.out().contains("(default: 10)"), r.out());
            assertTrue(r.out().contains("exit codes: 0"), r.out());
            assertTrue(r.out().contains("example:\n  pgrepl stream "), r.out());
        }
    }

    @Test
    void everyCommandHasHelpAndNoneTakesHelpForAUrl() {
        for (String c : List.of("identify", "slot", "decode", "demo", "stream")) {
            Cli.Result r = run(c, "--help");
            assertEquals(0, r.rc(), c + ": " + r.err());
            assertTrue(r.out().startsWith("usage: pgrepl " + c), r.out());
            assertTrue(r.out().contains("example:"), r.out());
        }
        Cli.Result slotList = run("slot", "list", "--help");
        assertEquals(0, slotList.rc(), slotList.err());
        assertTrue(slotList.out().contains("--if-not-exists"), slotList.out());
        Cli.Result top = run("--help");
        assertEquals(0, top.rc());
        for (String c : List.of("identify", "slot", "decode", "demo", "stream")) assertTrue(top.out().contains("  " + c + " "));
    }

    @Test
    void versionAndUsageErrors() {
        Cli.Result v = run("--version");
        assertEquals(0, v.rc());
        assertTrue(v.out().matches("pgrepl \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\n"), v.out());
        Cli.Result unknown = run("stream", "u", "-S", "s", "-P", "p", "--frobnicate");
        assertEquals(2, unknown.rc());
        assertTrue(unknown.err().contains("unknown option --frobnicate"), unknown.err());
        assertTrue(unknown.err().contains("Try 'pgrepl stream --help'"), unknown.err());
        Cli.Result flagValue = run("stream", "u", "-S", "s", "-P", "p", "--binary=yes");
        assertEquals(2, flagValue.rc());
        assertTrue(flagValue.err().contains("--binary takes no value"), flagValue.err());
        assertEquals(2, run("stream", "u", "-S").rc());
    }
}
