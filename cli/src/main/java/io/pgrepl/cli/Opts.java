package io.pgrepl.cli;

import io.pgrepl.client.config.ClosestName;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CLI's argument parser and help writer: GNU-style {@code --opt value}, {@code --opt=value},
 * {@code -o value}, {@code -ovalue}, flags, {@code --} to end options, positional arguments.
 * Hand-written (no picocli): the commands need a dozen options each and one help layout, which is
 * less code than adapting each command to a framework's model.
 */
final class Opts {
    /**
     * One option. {@code value} names the argument ({@code null}: a flag); {@code defaultValue} is
     * only shown in the help.
     */
    record Spec(String name, char shortName, String value, String description, String defaultValue) {
        static Spec flag(String name, char shortName, String description) {
            return new Spec(name, shortName, null, description, null);
        }

        static Spec flag(String name, String description) {
            return flag(name, '\0', description);
        }

        static Spec value(String name, char shortName, String value, String description, String defaultValue) {
            return new Spec(name, shortName, value, description, defaultValue);
        }

        static Spec value(String name, String value, String description, String defaultValue) {
            return value(name, '\0', value, description, defaultValue);
        }
    }

    /** A command's help: usage lines, what it does, its options, an example. */
    record Help(String usage, String summary, List<Spec> specs, String example) {
        void print(PrintStream out) {
            out.println("usage: " + usage.replace("\n", "\n       "));
            out.println();
            out.println(summary);
            if (!specs.isEmpty()) {
                out.println();
                out.println("options:");
                for (Spec s : specs) {
                    String left = "  " + (s.shortName() != '\0' ? "-" + s.shortName() + ", " : "    ") + "--" + s.name()
                            + (s.value() == null ? "" : (s.value().startsWith("[=") ? "" : " ") + s.value());
                    String desc = s.description() + (s.defaultValue() == null ? "" : " (default: " + s.defaultValue() + ")");
                    out.println(left.length() < 30 ? String.format("%-30s%s", left, desc) : left + "\n" + " ".repeat(30) + desc);
                }
                out.println(String.format("%-30s%s", "  -h, --help", "show this help and exit"));
            }
            out.println();
            out.println("exit codes: 0 done, 1 failed (connection, server or output error), 2 bad arguments");
            if (example != null) {
                out.println();
                out.println("example:");
                out.println("  " + example.replace("\n", "\n  "));
            }
        }
    }

    /** Parsed arguments. Values of repeated options accumulate; flags map to "true". */
    static final class Parsed {
        final Map<String, List<String>> values = new LinkedHashMap<>();
        final List<String> positional = new ArrayList<>();
        boolean help;

        boolean has(String name) {
            return values.containsKey(name);
        }

        String get(String name) {
            List<String> v = values.get(name);
            return v == null ? null : v.get(v.size() - 1);
        }

        List<String> all(String name) {
            return values.getOrDefault(name, List.of());
        }

        int intValue(String name, int dflt, int min, int max) throws UsageException {
            String v = get(name);
            if (v == null) return dflt;
            try {
                int n = Integer.parseInt(v.trim());
                if (n < min || n > max) throw new NumberFormatException();
                return n;
            } catch (NumberFormatException e) {
                throw new UsageException("--" + name + " needs a number from " + min + " to " + max + ", got '"
                        + CliErrors.shown(v) + "'");
            }
        }
    }

    private Opts() {}

    /** {@code " (did you mean --snapshot?)"} for a misspelt option, or nothing. */
    static String didYouMean(String name, List<Spec> specs) {
        List<String> names = new ArrayList<>();
        for (Spec s : specs) names.add(s.name());
        names.add("help");
        String best = ClosestName.of(name, names, ClosestName.DEFAULT_LIMIT);
        return best == null ? "" : " (did you mean --" + best + "?)";
    }

    static Parsed parse(List<Spec> specs, String[] args) throws UsageException {
        Map<String, Spec> byLong = new HashMap<>();
        Map<Character, Spec> byShort = new HashMap<>();
        for (Spec s : specs) {
            byLong.put(s.name(), s);
            if (s.shortName() != '\0') byShort.put(s.shortName(), s);
        }
        Parsed p = new Parsed();
        boolean optionsEnded = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (optionsEnded || a.equals("-") || !a.startsWith("-")) {
                p.positional.add(a);
            } else if (a.equals("--")) {
                optionsEnded = true;
            } else if (a.equals("--help") || a.equals("-h")) {
                p.help = true;
            } else if (a.startsWith("--")) {
                int eq = a.indexOf('=');
                String name = a.substring(2, eq < 0 ? a.length() : eq);
                Spec s = byLong.get(name);
                if (s == null) {
                    throw new UsageException("unknown option " + CliErrors.shown(eq < 0 ? a : a.substring(0, eq))
                            + didYouMean(name, specs));
                }
                if (s.value() != null && s.value().startsWith("[=")) {
                    // An optional value, given only as --name=value (a bare --name stays a flag)
                    p.values.computeIfAbsent(name, k -> new ArrayList<>()).add(eq >= 0 ? a.substring(eq + 1) : "true");
                } else if (s.value() == null) {
                    if (eq >= 0) throw new UsageException("--" + name + " takes no value");
                    p.values.computeIfAbsent(name, k -> new ArrayList<>()).add("true");
                } else {
                    String v;
                    if (eq >= 0) v = a.substring(eq + 1);
                    else if (i + 1 < args.length) v = args[++i];
                    else throw new UsageException("--" + name + " needs a value (" + s.value() + ")");
                    p.values.computeIfAbsent(name, k -> new ArrayList<>()).add(v);
                }
            } else {
                // -abc: flags may be bundled; a short option with a value takes the rest or the next argument
                for (int j = 1; j < a.length(); j++) {
                    char c = a.charAt(j);
                    Spec s = byShort.get(c);
                    if (s == null) throw new UsageException("unknown option -" + CliErrors.shown(String.valueOf(c)));
                    if (s.value() == null) {
                        p.values.computeIfAbsent(s.name(), k -> new ArrayList<>()).add("true");
                        continue;
                    }
                    String v;
                    if (j + 1 < a.length()) v = a.substring(j + 1);
                    else if (i + 1 < args.length) v = args[++i];
                    else throw new UsageException("-" + c + " needs a value (" + s.value() + ")");
                    p.values.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(v);
                    break;
                }
            }
        }
        return p;
    }
}
