package io.pgrepl.kafka.connect.settings;

import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Whether an unknown key looks like one of the connector's (a typo, or a setting of another
 * connector under one of the families pgrepl and Debezium use), and the known key nearest to it.
 */
final class NearestKey {
    private NearestKey() {}

    /** The first words of pgrepl's and Debezium's keys: a key starting so was meant for this connector. */
    private static final List<String> FAMILIES = List.of("database.", "snapshot.", "slot.", "column.", "table.", "schema.",
            "publication.", "topic.", "message.", "messages.", "signal.", "incremental.", "notification.", "heartbeat.",
            "datatype.", "decimal.", "binary.", "time.", "interval.", "hstore.", "max.", "poll.", "skipped.", "tombstones.",
            "include.", "lsn.", "plugin.", "provide.", "reselect.", "streaming.", "status.", "unavailable.", "event.",
            "transaction.", "offset.", "openlineage.", "guardrail.", "custom.", "memory.", "money.", "replica.",
            "sourceinfo.", "statistics.", "retriable.", "executor.", "extended.", "field.", "query.", "read.", "xmin.",
            "flush.", "legacy.", "connection.", "converters.", "post.processors.");

    /** Edit distance at or below which an unknown key counts as a typo of a known one. */
    private static final int TYPO = 3;

    /** {@return the known key nearest to {@code key}, or null when {@code key} does not look like one of them} */
    static String suggestion(String key, Collection<String> known) {
        String k = key.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int d = distance(k, candidate.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
        boolean family = FAMILIES.stream().anyMatch(k::startsWith);
        if (!family && bestDistance > TYPO) return null;
        // A key of a known family that is nowhere near a known key still gets refused, without a guess.
        return best != null && bestDistance <= Math.max(TYPO, k.length() / 3) ? best : "";
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
