package io.pgrepl.kafka.connect.offsets;

/**
 * The kafka signal channel's consumed position, kept in the source offsets as Debezium keeps it: one
 * line, {@code kafka-signal NEXT}, after the engine's incremental state in the same offset field. Both
 * are read together on the stream's event loop, and the position moves only once the engine applied
 * the signal there, so an offset never counts a signal its state does not hold: a restarted task seeks the
 * signal topic to NEXT and acts on every later signal once, whatever became of the consumer group's
 * offsets (a group left empty longer than the broker's offsets.retention.minutes loses them).
 */
public final class SignalOffsets {
    private static final String LINE = "\nkafka-signal ";

    private SignalOffsets() {}

    /** {@code engineState} with the next signal offset to read; unchanged while none was consumed ({@code next < 0}). */
    public static String with(String engineState, long next) {
        return next < 0 ? engineState : engineState + LINE + next;
    }

    /** {@code stored} with the engine's part replaced by {@code emptyState}: null when it records no signal position either. */
    public static String withoutProgress(String stored, String emptyState) {
        long next = next(stored);
        return next < 0 ? null : with(emptyState, next);
    }

    /** The engine's part of a stored state (null stays null). */
    public static String engineState(String stored) {
        if (stored == null) return null;
        int at = stored.indexOf(LINE);
        return at < 0 ? stored : stored.substring(0, at);
    }

    /** The next signal offset a stored state records, or -1. */
    public static long next(String stored) {
        if (stored == null) return -1;
        int at = stored.indexOf(LINE);
        if (at < 0) return -1;
        try {
            return Long.parseLong(stored.substring(at + LINE.length()).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the stored kafka signal position is not a number: " + stored.substring(at + 1));
        }
    }
}
