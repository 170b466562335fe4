package io.pgrepl.kafka.connect.settings;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A list of regular expressions as Debezium reads its include and exclude lists: each must match
 * a whole name, ignoring case. Empty matches nothing.
 */
public record RegexList(List<Pattern> patterns) {
    public static final RegexList NONE = new RegexList(List.of());

    public static RegexList of(List<String> regexes) {
        if (regexes == null) return NONE;
        return new RegexList(regexes.stream().map(String::trim).filter(s -> !s.isEmpty())
                .map(r -> Pattern.compile(r, Pattern.CASE_INSENSITIVE)).toList());
    }

    public boolean isEmpty() {
        return patterns.isEmpty();
    }

    public boolean matches(String name) {
        for (Pattern p : patterns) if (p.matcher(name).matches()) return true;
        return false;
    }
}
