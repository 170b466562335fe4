package io.pgrepl.cli;

/** A count with its noun for a person: {@code 1 slot}, {@code 2 slots}, {@code 0 signals}. */
final class Counts {
    private Counts() {}

    static String of(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }
}
