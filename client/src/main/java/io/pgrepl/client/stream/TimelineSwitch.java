package io.pgrepl.client.stream;

/** The server reached the end of the streamed timeline: continue on {@code nextTimeline} from {@code switchLsn}. */
public record TimelineSwitch(long nextTimeline, long switchLsn) {}
