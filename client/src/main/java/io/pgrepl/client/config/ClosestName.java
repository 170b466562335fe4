package io.pgrepl.client.config;

import java.util.Collection;

/**
 * The "did you mean" behind unknown connection parameters and the CLI's unknown options: the
 * known name nearest to a misspelt one by edit distance (Levenshtein), if it is near enough to be
 * a slip of the keyboard rather than another word.
 */
public final class ClosestName {
    /** Distances below this count as a misspelling: {@code sslmdoe}, {@code snapshop}, {@code publications}. */
    public static final int DEFAULT_LIMIT = 3;

    private ClosestName() {}

    /**
     * The candidate nearest to {@code unknown} at a distance below {@code limit} (the first one
     * on a tie), or null. Compared as given: lower-case both sides for case-insensitive names.
     */
    public static String of(String unknown, Collection<String> candidates, int limit) {
        String best = null;
        int bestDistance = limit;
        for (String name : candidates) {
            int d = editDistance(unknown, name, bestDistance);
            if (d < bestDistance) {
                best = name;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance, giving up (returning {@code limit}) once it cannot be below {@code limit}. */
    static int editDistance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return Math.min(prev[b.length()], limit);
    }
}
