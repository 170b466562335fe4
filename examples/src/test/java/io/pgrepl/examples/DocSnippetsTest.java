package io.pgrepl.examples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code ```java} block of README.md and docs/*.md compiles against the published API, so a
 * reader who copies one gets code that builds. A block that declares a top-level type is compiled
 * as it stands; any other block is a run of statements after its imports, compiled as a method
 * body. Such a block may name what it assumes from the reader's program in a first line
 * {@code // given: Type name, Type other}, which become the method's parameters: the snippet stays
 * short and the compiler still checks every call in it.
 */
class DocSnippetsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern TYPE = Pattern.compile(
            "(?m)^(?:public\\s+)?(?:final\\s+|abstract\\s+)?(?:class|record|interface|enum)\\s+(\\w+)");
    private static final Pattern GIVEN = Pattern.compile("^//\\s*given:\\s*(.+)$");

    record Snippet(String file, int line, String code) {}

    static List<Snippet> snippets() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Snippet> out = new ArrayList<>();
        for (Path f : files) {
            String text = Files.readString(f);
            Matcher m = BLOCK.matcher(text);
            while (m.find()) {
                int line = 1 + (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                out.add(new Snippet(ROOT.relativize(f).toString(), line, m.group(1)));
            }
        }
        return out;
    }

    /** The block as a compilation unit: as it stands, or its statements wrapped in a method. */
    static String unit(String code, String className) {
        if (TYPE.matcher(code).find()) return code;
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        String params = "";
        for (String l : code.split("\n", -1)) {
            Matcher g = GIVEN.matcher(l.trim());
            if (l.startsWith("import ")) imports.append(l).append('\n');
            else if (g.matches() && body.toString().isBlank()) params = g.group(1).trim();
            else body.append(l).append('\n');
        }
        return imports + "class " + className + " {\n    void run(" + params + ") throws Exception {\n" + body + "    }\n}\n";
    }

    static String typeName(String unit) {
        Matcher t = TYPE.matcher(unit);
        assertTrue(t.find());
        return t.group(1);
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockCompiles() throws IOException {
        List<Snippet> all = snippets();
        assertFalse(all.isEmpty(), "no ```java blocks found under " + ROOT.toAbsolutePath());
        return all.stream().map(s -> DynamicTest.dynamicTest(s.file() + ":" + s.line(), () -> compile(s)));
    }

    private static void compile(Snippet s) throws IOException {
        String name = "Snippet_" + s.file().replaceAll("\\W", "_") + "_" + s.line();
        String unit = unit(s.code(), name);
        String type = typeName(unit);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out = Files.createTempDirectory("doc-snippet");
        JavaFileObject source = new SimpleJavaFileObject(URI.create("string:///" + type + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return unit;
            }
        };
        List<String> options = List.of("--release", "17", "-proc:none", "-d", out.toString(),
                "-classpath", System.getProperty("java.class.path"));
        boolean ok = javac.getTask(null, null, diagnostics, options, null, List.of(source)).call();
        StringBuilder errors = new StringBuilder();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                errors.append("\n  line ").append(d.getLineNumber()).append(": ").append(d.getMessage(Locale.ROOT));
            }
        }
        assertTrue(ok, "the ```java block at " + s.file() + ":" + s.line() + " does not compile:" + errors
                + "\n--- compiled as ---\n" + unit);
    }
}
