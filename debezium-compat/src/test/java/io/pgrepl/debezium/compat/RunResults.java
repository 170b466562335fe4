package io.pgrepl.debezium.compat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * One run of Debezium's test classes (one connector, one server) as Surefire reported it: its
 * {@code TEST-*.xml} files and the {@code run.properties} {@link CompatServer} wrote beside them.
 */
public record RunResults(String connector, String loadedConnector, String serverVersion, int major, String date,
                         String postgis, Map<String, ClassResult> classes) {
    static final String RUN_RECORD = "run.properties";

    /** One test that did not pass: its method (with Surefire's parameter suffix), the failure's first line and the text to classify. */
    public record Failure(String test, String firstLine, String detail) {}

    /** {@code passedTests}: the names of the tests that passed (the table lists only the failing ones). */
    public record ClassResult(int passed, int failed, int skipped, List<Failure> failures, List<String> passedTests) {
        public int total() {
            return passed + failed + skipped;
        }

        public String figures() {
            return passed + "/" + failed + "/" + skipped;
        }
    }

    /** {@return the run in {@code dir}, or null when it has no run record} */
    public static RunResults read(Path dir) {
        Path record = dir.resolve(RUN_RECORD);
        if (!Files.isRegularFile(record)) return null;
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(record)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, ClassResult> classes = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "TEST-*.xml")) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                String cls = name.substring("TEST-".length(), name.length() - ".xml".length());
                classes.put(cls.substring(cls.lastIndexOf('.') + 1), parse(f));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new RunResults(p.getProperty("connector.expected"), p.getProperty("connector.loaded"),
                p.getProperty("server.version"), Integer.parseInt(p.getProperty("server.major")),
                p.getProperty("run.date", "?"), p.getProperty("server.postgis", "none"), classes);
    }

    /** Runs are named {@code <connector>-pg<major>}, e.g. {@code pgrepl-pg18}. */
    public String label() {
        return connector + "-pg" + major;
    }

    static ClassResult parse(Path xml) {
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            doc = f.newDocumentBuilder().parse(xml.toFile());
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + xml + ": " + e.getMessage(), e);
        }
        List<String> passed = new ArrayList<>();
        int skipped = 0;
        List<Failure> failures = new ArrayList<>();
        NodeList cases = doc.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element tc = (Element) cases.item(i);
            Element problem = firstChild(tc, "failure", "error");
            if (problem != null) {
                failures.add(failure(tc.getAttribute("name"), problem));
            } else if (firstChild(tc, "skipped") != null) {
                skipped++;
            } else {
                passed.add(tc.getAttribute("name"));
            }
        }
        return new ClassResult(passed.size(), failures.size(), skipped, List.copyOf(failures), List.copyOf(passed));
    }

    private static Failure failure(String test, Element problem) {
        String message = problem.getAttribute("message");
        String type = problem.getAttribute("type");
        String trace = problem.getTextContent() == null ? "" : problem.getTextContent();
        String first = message.isBlank() ? firstLine(trace) : firstLine(message);
        if (first.isBlank()) first = type;
        else if (!type.isBlank() && !message.isBlank() && !first.startsWith(type) && !type.endsWith("ConnectorFailed")) {
            first = simple(type) + ": " + first;
        }
        return new Failure(test, first.strip(), type + "\n" + message + "\n" + trace);
    }

    private static String simple(String type) {
        return type.substring(type.lastIndexOf('.') + 1);
    }

    static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }

    private static Element firstChild(Element parent, String... names) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                for (String name : names) if (name.equals(e.getTagName())) return e;
            }
        }
        return null;
    }
}
