package io.pgrepl.client.stream;

import io.pgrepl.codec.Lsn;

/** The server reached the end of the streamed timeline: continue on {@code nextTimeline} from {@code switchLsn}. */
public record TimelineSwitch(long nextTimeline, long switchLsn) {
    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "TimelineSwitch[nextTimeline=" + nextTimeline + ", switchLsn=" + Lsn.format(switchLsn) + "]";
    }
}
