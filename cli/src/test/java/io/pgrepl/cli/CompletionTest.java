package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pgrepl completion bash}, loaded into a real bash and asked what completes. No server needed. */
class CompletionTest {
    @TempDir
    static Path dir;
    static Path script;

    @BeforeAll
    static void writeScript() throws Exception {
        Cli.Result r = Cli.run("completion", "bash");
        assertEquals(0, r.rc(), r.err());
        script = Files.writeString(dir.resolve("pgrepl.bash"), r.out());
    }

    /** Runs bash: sources the script, then {@code commands}; returns stdout. */
    private static String bash(String commands) throws Exception {
        Process p = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", "source " + script + " || exit 9\n" + commands)
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String s = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), s);
        return s;
    }

    /** What the completion function offers for the command line {@code words} (the last one being completed). */
    private static List<String> complete(String... words) throws Exception {
        StringBuilder arr = new StringBuilder();
        for (String w : words) arr.append(" '").append(w).append('\'');
        String out = bash("COMP_WORDS=(" + arr + "); COMP_CWORD=" + (words.length - 1)
                + "; _pgrepl; printf '%s\\n' \"${COMPREPLY[@]}\"");
        List<String> l = new ArrayList<>(out.lines().filter(x -> !x.isEmpty()).toList());
        l.sort(null);
        return l;
    }

    @Test
    void theScriptRegistersAFunctionForPgrepl() throws Exception {
        assertEquals("complete -o default -F _pgrepl pgrepl", bash("complete -p pgrepl").strip());
    }

    @Test
    void commandsSubcommandsOptionsAndFixedValuesComplete() throws Exception {
        assertEquals(List.of("stream"), complete("pgrepl", "str"));
        assertEquals(List.of("slot", "snapshot", "stream"), complete("pgrepl", "s"));
        assertEquals(List.of("create"), complete("pgrepl", "slot", "cr"));
        assertEquals(List.of("--if-not-exists"), complete("pgrepl", "slot", "create", "postgresql://db/app", "s1", "--if"));
        assertEquals(List.of("--wait"), complete("pgrepl", "slot", "drop", "--w"));
        assertEquals(List.of("--format"), complete("pgrepl", "stream", "--for"));
        assertEquals(List.of("json"), complete("pgrepl", "stream", "-S", "s", "--format", "j"));
        assertEquals(List.of("json", "protocol"), complete("pgrepl", "stream", "--format", ""));
        assertEquals(List.of("protocol"), complete("pgrepl", "stream", "--format", "=", "p"));
        assertEquals(List.of("off", "on"), complete("pgrepl", "stream", "--streaming", "o"));
        assertEquals(List.of("export"), complete("pgrepl", "slot", "create", "--snapshot", "e"));
        assertEquals(List.of("zsh"), complete("pgrepl", "completion", "z"));
        assertEquals(List.of("demo"), complete("pgrepl", "help", "dem"));
        List<String> streamOptions = complete("pgrepl", "stream", "-");
        for (String o : List.of("--slot", "-S", "--publication", "-P", "--create-slot", "--snapshot", "--end-lsn", "-E",
                "--reconnect", "--fsync-interval", "-F", "--verbose", "-v", "--help")) {
            assertTrue(streamOptions.contains(o), o + " in " + streamOptions);
        }
        assertTrue(complete("pgrepl", "stream", "--slot", "").isEmpty(), "a slot name is free text");
    }

    @Test
    void everyOptionInTheHelpCompletes() throws Exception {
        // the help's option lines, parsed from its text: what the user reads must be what completes
        String help = Cli.run("stream", "--help").out();
        List<String> fromHelp = new ArrayList<>();
        for (String line : help.lines().toList()) {
            if (!line.matches(" {2,6}-.*")) continue;
            String left = line.trim().split(" {2,}")[0]; // the option column, before the description
            // --opt[=a|b]: an optional value, given only after =
            Arrays.stream(left.split("[ ,]+")).filter(w -> w.startsWith("-")).map(w -> w.replaceFirst("\\[=.*", "")).forEach(fromHelp::add);
        }
        assertTrue(fromHelp.size() > 30, fromHelp.toString());
        List<String> completed = complete("pgrepl", "stream", "-");
        for (String o : fromHelp) assertTrue(completed.contains(o), o + " in " + completed);
    }

    @Test
    void zshGetsTheSameFunctionThroughBashcompinit() {
        Cli.Result z = Cli.run("completion", "zsh");
        assertEquals(0, z.rc());
        assertTrue(z.out().startsWith("autoload -U +X bashcompinit && bashcompinit\n"), z.out());
        assertTrue(z.out().contains("complete -o default -F _pgrepl pgrepl"), z.out());
        assertEquals(2, Cli.run("completion", "fish").rc());
    }
}
