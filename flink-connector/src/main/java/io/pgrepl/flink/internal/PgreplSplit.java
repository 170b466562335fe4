package io.pgrepl.flink.internal;

import org.apache.flink.api.connector.source.SourceSplit;

/** A split of the source: a key range of one table ({@link SnapshotSplit}) or the stream ({@link StreamSplit}). */
public sealed interface PgreplSplit extends SourceSplit permits SnapshotSplit, StreamSplit {}
