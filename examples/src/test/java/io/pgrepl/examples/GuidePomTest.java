package io.pgrepl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

/**
 * The library guide's complete {@code pom.xml} for a new project stays one that builds: parsed as
 * XML, it pins a compiler plugin that knows {@code maven.compiler.release} (stock Maven 3.8's
 * default compiles for Java 5), releases 17, takes the BOM at this build's version, and brings an
 * SLF4J binding at the version this build pins.
 */
class GuidePomTest {
    private static final Path ROOT = Path.of("..");

    private static Document pom() throws Exception {
        String guide = Files.readString(ROOT.resolve("docs/library.md"));
        Matcher m = Pattern.compile("(?s)```xml\\n(<project .*?</project>)\\n```").matcher(guide);
        assertTrue(m.find(), "docs/library.md has no complete ```xml <project> block");
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        return f.newDocumentBuilder().parse(new InputSource(new StringReader(m.group(1))));
    }

    private static String parentPom(String xpath) throws Exception {
        Document parent = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile());
        return XPathFactory.newInstance().newXPath().evaluate(xpath, parent);
    }

    @Test
    void guidePomIsCompleteAndCurrent() throws Exception {
        Document pom = pom();
        XPath x = XPathFactory.newInstance().newXPath();
        assertEquals("17", x.evaluate("/project/properties/maven.compiler.release", pom));
        String compiler = x.evaluate("/project/build/plugins/plugin[artifactId='maven-compiler-plugin']/version", pom);
        assertTrue(compiler.matches("3\\.(1[0-9]|[6-9])\\..*"), "compiler plugin must know release: " + compiler);
        assertEquals(parentPom("/project/version"),
                x.evaluate("/project/dependencyManagement/dependencies/dependency[artifactId='pgrepl-bom']/version", pom));
        assertEquals("pgrepl-client", x.evaluate("/project/dependencies/dependency[groupId='io.pgrepl']/artifactId", pom));
        assertEquals(parentPom("/project/properties/slf4j.version"),
                x.evaluate("/project/dependencies/dependency[artifactId='slf4j-simple']/version", pom));
    }
}
