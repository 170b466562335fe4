package io.pgrepl.debezium.compat;

import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a Debezium test failed under pgrepl, by pattern on its failure (type, message, stack trace): a
 * refused setting (pgrepl's settings check names the key), a JMX MBean of Debezium's that pgrepl does
 * not register, a class of Debezium's connector the test reaches into, records that differ or do not
 * come, a task failure. The first match in this order wins.
 */
final class FailureCause {
    private FailureCause() {}

    static final String REFUSED = "refused setting ";

    private static final Pattern NOT_A_SETTING = Pattern.compile("([\\w.\\-]+) is not a setting of pgrepl");
    private static final Pattern NOT_SUPPORTED = Pattern.compile("([\\w.\\-]+) is a Debezium setting pgrepl does not");
    private static final Pattern VALUE_NOT_SUPPORTED = Pattern.compile("([\\w.\\-]+)=\\S* is not supported by pgrepl");
    private static final Pattern INVALID_VALUE = Pattern.compile("Invalid value .*? for configuration ([\\w.\\-]+)");
    private static final Pattern OTHER_REFUSAL = Pattern.compile("configuration refused: ([\\w.\\-]+)");
    private static final Pattern DEBEZIUM_CLASS = Pattern.compile(
            "(?:ClassCastException|NoSuchMethodError|NoSuchFieldError|IllegalAccessError)[^\\n]*?(io\\.debezium\\.connector\\.postgresql\\.[\\w.$]+)");
    private static final Pattern MISSING_EXTENSION = Pattern.compile("extension (?:&quot;|\")(\\w+)(?:&quot;|\") is not available");
    private static final Pattern AWAIT_ALIAS = Pattern.compile("Condition with alias '([^']+)'");

    static String of(RunResults.Failure f) {
        String d = f.detail();
        TreeSet<String> keys = new TreeSet<>();
        for (Pattern p : new Pattern[] {NOT_A_SETTING, NOT_SUPPORTED, VALUE_NOT_SUPPORTED, INVALID_VALUE}) {
            Matcher m = p.matcher(d);
            while (m.find()) keys.add(m.group(1));
        }
        if (keys.isEmpty() && d.contains("configuration refused: ")) {
            Matcher m = OTHER_REFUSAL.matcher(d);
            if (m.find()) keys.add(m.group(1));
        }
        if (!keys.isEmpty()) return REFUSED + String.join(", ", keys);
        Matcher ext = MISSING_EXTENSION.matcher(d);
        if (ext.find()) return "test environment: no " + ext.group(1) + " extension on the server (both connectors)";
        if (d.contains("pgrepl's connector failed") && (d.contains(": task start: ") || d.contains(": task poll: "))) {
            return "task failed: " + afterMarker(d);
        }
        if (d.contains("pgrepl's connector failed") && d.contains(": connector start: ")) {
            return "connector start failed: " + afterMarker(d);
        }
        Matcher cls = DEBEZIUM_CLASS.matcher(d);
        if (cls.find()) return "reaches into Debezium's connector (" + simple(cls.group(1)) + ")";
        if (d.contains("InstanceNotFoundException") || d.contains("Streaming was not started on time")
                || d.contains("Snapshot was not completed on time") || d.contains("MBean")) {
            return "missing MBean (Debezium's JMX metrics)";
        }
        Matcher alias = AWAIT_ALIAS.matcher(d);
        if (alias.find()) return "timed out: " + alias.group(1);
        if (d.contains("ConditionTimeoutException")) return "timed out waiting (Awaitility)";
        if (d.contains("consumeRecords") || d.contains("consumeRecordsByTopic") || d.contains("waitForAvailableRecords")) {
            return "records: fewer or other than expected";
        }
        if (d.contains("VerifyRecord") || d.contains("assertRecord") || d.contains("SourceRecordAssert")
                || d.contains("assertFieldAbsent") || d.contains("assertSchema")) {
            return "record difference";
        }
        if (d.startsWith("org.opentest4j.AssertionFailedError") || d.startsWith("java.lang.AssertionError")) {
            return "assertion (other)";
        }
        String type = RunResults.firstLine(d);
        return "error: " + simple(type.isBlank() ? "unknown" : type);
    }

    /** The exception's type after {@code task start: } and the like, the message left out (it varies). */
    private static String afterMarker(String d) {
        Matcher m = Pattern.compile(": (?:task start|task poll|connector start): (\\w+)").matcher(d);
        return m.find() ? m.group(1) : "?";
    }

    private static String simple(String name) {
        String n = name.strip();
        int dollar = n.indexOf('$');
        if (dollar > 0) n = n.substring(0, dollar);
        return n.substring(n.lastIndexOf('.') + 1);
    }
}
