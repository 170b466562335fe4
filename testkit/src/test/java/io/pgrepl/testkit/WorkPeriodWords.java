package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Phrases that name the periods or the tracker items the project was built in, rather than its
 * benchmarks, versions and dates: ordinals or numbers before "session", a round of work, issue
 * and defect numbers, helpers' names. Each rule is narrow on purpose: PostgreSQL's own sessions
 * ({@code session_replication_role}, a session in {@code pg_stat_activity}), a benchmark's rounds
 * ({@code --rounds 3}, round 0, that round's copy) and colours such as {@code "#555"} match none.
 * The few legitimate phrases a rule does catch are listed in {@link #ALLOWED}, each with the words
 * around it.
 */
final class WorkPeriodWords {
    private static final String ORDINAL = "(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
            + "|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth)";

    /**
     * A rule: its name, for the message, and what it matches (case-insensitive). The pattern runs only
     * on lines holding its hint, a word every match contains: most lines hold none.
     */
    record Rule(String name, String hint, Pattern pattern) {
        Rule(String name, String hint, String regex) {
            this(name, hint, Pattern.compile(regex, Pattern.CASE_INSENSITIVE));
        }
    }

    /** Words are apart by {@code \s+} in the patterns, so that this file does not match itself. */
    static final List<Rule> RULES = List.of(
            new Rule("an ordinal session", "session", "\\b" + ORDINAL + "[\\s-]sessions?\\b"),
            new Rule("a numbered session", "session", "\\bsessions?[ _-]?\\d+"),
            new Rule("a session named as a period", "session", "\\b(?:this|that|next|previous|earlier|last)\\s+session\\b"),
            new Rule("a round of work", "round", "\\bthis\\s+round\\b|\\ballocation\\s+round\\b"),
            new Rule("work of parallel sessions", "sessions'", "\\bother\\s+sessions'"
                    + "|\\bsessions'\\s+(?:builds?|work|branch(?:es)?)\\b"),
            new Rule("an issue number", "issue", "\\bissues?[\\s-]?#?\\d+|\\bissue\\d+"),
            new Rule("the issue as a work item", "issue", "\\bthis\\s+issue\\b|\\bthe\\s+issue's\\b"
                    + "|\\bthe\\s+issue\\s+(?:asks|asked|warns|rules)\\b"),
            new Rule("a tracker number", "#", "(?:^|(?<=[\\s(\\[]))#\\d+\\b"),
            new Rule("a defect number", "defect", "\\bdefects?\\s+\\d+"),
            new Rule("a helper", "helper", "\\bhelper-\\d+\\b|\\bhelpers?'s?\\s+(?:builds?|work|branch(?:es)?|session)\\b"
                    + "|\\bother\\s+helpers\\b"),
            new Rule("a brief for the work", "brief", "\\bthe\\s+brief\\b"),
            new Rule("engineers' work", "engineer", "\\bengineers?'s?\\s+(?:builds?|files)\\b"));

    /**
     * Phrases a rule catches where they are PostgreSQL's own words: a walsender's session, named with
     * the words around it so that the same phrase elsewhere is still caught.
     */
    static final List<String> ALLOWED = List.of(
            "a channel this session listens on", // BackendMessage: NOTIFY is per session
            "caches of this session", // LogicalReplicationStream: per walsender session
            "each commit of this session flushes"); // GoldenCapture: the capture's SQL session

    /** Directories never walked: build output and version control. Other dot-directories are skipped too. */
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", "node_modules");
    private static final Set<String> DOT_DIRECTORIES_WALKED = Set.of(".ci", ".github", ".mvn");
    private static final long LARGEST_TEXT_FILE = 8L << 20;

    /** One phrase found: where and which rule. */
    record Finding(String place, String phrase, String rule) {
        @Override
        public String toString() {
            return place + ": \"" + phrase + "\" (" + rule + ")";
        }
    }

    private WorkPeriodWords() {
    }

    /** The phrases of one line that no allowed phrase covers. */
    static List<Finding> scan(String place, String line) {
        List<Finding> found = new ArrayList<>();
        String lower = line.toLowerCase(Locale.ROOT);
        for (Rule rule : RULES) {
            if (!lower.contains(rule.hint())) {
                continue;
            }
            Matcher m = rule.pattern().matcher(line);
            while (m.find()) {
                if (!allowed(lower, m.start(), m.end())) {
                    found.add(new Finding(place, m.group(), rule.name()));
                }
            }
        }
        return found;
    }

    private static boolean allowed(String lowerLine, int start, int end) {
        for (String phrase : ALLOWED) {
            for (int at = lowerLine.indexOf(phrase); at >= 0; at = lowerLine.indexOf(phrase, at + 1)) {
                if (at <= start && end <= at + phrase.length()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Every text file under root (and every path's name): file, line and phrase of each finding. */
    static List<Finding> scanTree(Path root) {
        List<Finding> found = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                    if (!dir.equals(root) && (SKIPPED_DIRECTORIES.contains(name)
                            || name.startsWith(".") && !DOT_DIRECTORIES_WALKED.contains(name))) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    if (!dir.equals(root)) {
                        found.addAll(scan(root.relativize(dir) + "/ (its name)", name));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    String relative = root.relativize(file).toString();
                    found.addAll(scan(relative + " (its name)", file.getFileName().toString()));
                    if (attrs.isRegularFile() && attrs.size() <= LARGEST_TEXT_FILE) {
                        scanFile(relative, Files.readAllBytes(file), found);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static void scanFile(String relative, byte[] bytes, List<Finding> found) {
        for (int i = 0, n = Math.min(bytes.length, 8192); i < n; i++) {
            if (bytes[i] == 0) {
                return; // binary: jars, images, archives
            }
        }
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            found.addAll(scan(relative + ":" + (i + 1), lines[i]));
        }
    }

    /** The repository's root: the nearest directory up from here whose pom.xml lists the modules. */
    static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom) && Files.readString(pom).contains("<module>testkit</module>")) {
                    return dir;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no pgrepl-parent pom.xml above " + Path.of("").toAbsolutePath());
    }
}
