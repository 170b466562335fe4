package io.pgrepl.client.replication;

/** TIMELINE_HISTORY's row: the history file name and its raw bytes, never decoded. */
public record TimelineHistory(String fileName, byte[] content) {}
