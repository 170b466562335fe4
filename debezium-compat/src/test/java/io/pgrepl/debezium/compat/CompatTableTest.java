package io.pgrepl.debezium.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The table's writer, reader and check on runs made up here and on a Surefire report written here. */
class CompatTableTest {

    private static RunResults.Failure refused(String test) {
        return new RunResults.Failure(test, "pgrepl's connector failed and the test still waited 5 s later: configuration"
                + " refused: database.topic.prefix is not a setting of pgrepl's connector | x",
                "io.pgrepl.debezium.compat.FailFast$ConnectorFailed\nconfiguration refused: database.topic.prefix is not"
                        + " a setting of pgrepl's connector, of Debezium's PostgreSQL connector or of Kafka Connect\n");
    }

    private static RunResults run(String connector, int major, RunResults.ClassResult c) {
        Map<String, RunResults.ClassResult> classes = new TreeMap<>();
        classes.put("DomainTypesIT", c);
        return new RunResults(connector, connector, major + ".1", major, "2026-12-07", "none", classes);
    }

    @Test
    void writtenTableReadsBackAndCatchesAChangedOutcome() {
        RunResults pgrepl = run("pgrepl", 18, new RunResults.ClassResult(1, 1, 0, List.of(refused("shouldA()")),
                List.of("shouldB()")));
        RunResults debezium = run("debezium", 18, new RunResults.ClassResult(2, 0, 0, List.of(),
                List.of("shouldA()", "shouldB()")));
        String doc = CompatTable.render(List.of(debezium, pgrepl), "abc123");
        assertTrue(doc.contains("| DomainTypesIT | 1/1/0 | 2/0/0 |"), doc);
        assertTrue(doc.contains("| refused setting (below) | 1 |"), doc);
        assertTrue(doc.contains("| database.topic.prefix | 1 |"), doc);
        CompatTable.Parsed table = CompatTable.parse(doc);
        assertEquals(List.of(), CompatibilityTableTest.disagreements(pgrepl, table));
        assertEquals(List.of(), CompatibilityTableTest.disagreements(debezium, table));

        RunResults fixed = run("pgrepl", 18, new RunResults.ClassResult(2, 0, 0, List.of(),
                List.of("shouldA()", "shouldB()")));
        List<String> d = CompatibilityTableTest.disagreements(fixed, table);
        assertEquals(2, d.size(), d.toString());
        assertTrue(d.get(0).contains("the table says 1/1/0, the run 2/0/0"), d.toString());
        assertTrue(d.get(1).contains("DomainTypesIT.shouldA() passes on PostgreSQL 18"), d.toString());

        RunResults broken = run("pgrepl", 18, new RunResults.ClassResult(0, 1, 0, List.of(refused("shouldB()")),
                List.of()));
        d = CompatibilityTableTest.disagreements(broken, table);
        assertEquals(1, d.size(), d.toString());
        assertTrue(d.get(0).contains("DomainTypesIT.shouldB() fails on PostgreSQL 18"), d.toString());

        RunResults otherMajor = run("pgrepl", 10, pgrepl.classes().get("DomainTypesIT"));
        assertTrue(CompatibilityTableTest.disagreements(otherMajor, table).get(0).contains("not in the table's column"));
    }

    @Test
    void surefireReportIsCounted(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(RunResults.RUN_RECORD),
                "connector.expected=pgrepl\nconnector.loaded=pgrepl\nserver.version=18.1\nserver.major=18\nrun.date=2026-12-07\n");
        Files.writeString(dir.resolve("TEST-io.debezium.connector.postgresql.DomainTypesIT.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <testsuite name="io.debezium.connector.postgresql.DomainTypesIT" tests="4" failures="1" errors="1" skipped="1">
                  <testcase name="passes" classname="io.debezium.connector.postgresql.DomainTypesIT" time="1"/>
                  <testcase name="fails" classname="io.debezium.connector.postgresql.DomainTypesIT" time="1">
                    <failure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError">trace
                  at io.debezium.data.VerifyRecord.isValid(VerifyRecord.java:1)</failure>
                  </testcase>
                  <testcase name="errs(String)[1]" classname="io.debezium.connector.postgresql.DomainTypesIT" time="1">
                    <error message="Condition with alias 'Streaming was not started on time' didn't complete" type="org.awaitility.core.ConditionTimeoutException">x</error>
                  </testcase>
                  <testcase name="skips" classname="io.debezium.connector.postgresql.DomainTypesIT" time="0"><skipped message="no"/></testcase>
                </testsuite>
                """);
        RunResults r = RunResults.read(dir);
        RunResults.ClassResult c = r.classes().get("DomainTypesIT");
        assertEquals("1/2/1", c.figures());
        assertEquals(List.of("passes"), c.passedTests());
        assertEquals("AssertionFailedError: expected: <1> but was: <2>", c.failures().get(0).firstLine());
        assertEquals("record difference", FailureCause.of(c.failures().get(0)));
        assertEquals("missing MBean (Debezium's JMX metrics)", FailureCause.of(c.failures().get(1)));
        assertEquals("refused setting database.topic.prefix", FailureCause.of(refused("t")));
    }
}
