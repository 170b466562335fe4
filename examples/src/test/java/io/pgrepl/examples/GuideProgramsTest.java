package io.pgrepl.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The library guide's (docs/library.md) programs are these files, word for word (minus the package
 * line), so the code {@link QuickstartTest} compiles and runs is the code a reader copies.
 */
class GuideProgramsTest {
    private static final Path ROOT = Path.of("..");

    private static List<String> javaBlocks() throws Exception {
        List<String> blocks = new ArrayList<>();
        String readme = Files.readString(ROOT.resolve("docs/library.md"));
        int from = 0;
        while ((from = readme.indexOf("```java\n", from)) >= 0) {
            int start = from + "```java\n".length();
            int end = readme.indexOf("\n```", start);
            blocks.add(readme.substring(start, end + 1));
            from = end;
        }
        return blocks;
    }

    private static void assertInReadme(String program) throws Exception {
        String source = Files.readString(ROOT.resolve("examples/src/main/java/io/pgrepl/examples/" + program + ".java"));
        String expected = source.replaceFirst("^package io\\.pgrepl\\.examples;\n\n", "");
        assertTrue(javaBlocks().contains(expected),
                "docs/library.md has no ```java block equal to " + program + ".java without its package line");
    }

    @Test
    void handlerProgram() throws Exception {
        assertInReadme("HandlerQuickstart");
    }

    @Test
    void flowProgram() throws Exception {
        assertInReadme("FlowQuickstart");
    }
}
