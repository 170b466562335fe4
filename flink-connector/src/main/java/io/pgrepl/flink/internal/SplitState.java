package io.pgrepl.flink.internal;

import java.util.ArrayList;
import java.util.List;

/** A split's progress on the task thread, moved by each element as it is emitted. */
abstract sealed class SplitState permits SplitState.Snapshot, SplitState.Stream {
    /** {@return the split as a checkpoint records it} */
    abstract PgreplSplit toSplit();

    /** A snapshot split: the pieces emitted, and how far into the piece being emitted. */
    static final class Snapshot extends SplitState {
        final SnapshotSplit split;
        final List<Piece> pieces;
        /** The last row emitted of the piece in progress, or null; its key is taken when a checkpoint needs it. */
        Element.Read last;
        /** Set when the split's last piece is emitted. */
        boolean finished;

        Snapshot(SnapshotSplit split) {
            this.split = split;
            this.pieces = new ArrayList<>(split.pieces());
            this.finished = split.finished();
        }

        /**
         * The rows emitted of a piece in progress make a piece of their own, up to the last one:
         * a restored split reads on after it, under a new snapshot.
         */
        @Override
        SnapshotSplit toSplit() {
            List<Piece> all = new ArrayList<>(pieces);
            if (last != null) all.add(new Piece(last.key(), last.snapshot(), last.lsn(), split.again()));
            return split.with(all, finished);
        }
    }

    /** The stream split: the last transaction emitted whole, and how far into the one in progress. */
    static final class Stream extends SplitState {
        final StreamSplit split;
        long lsn;
        long partialEndLsn;
        long partialCount;
        /** Commit time of the last transaction emitted, microseconds since 2000 (0: none yet). */
        long lastCommitMicros;
        /** Set when the stream stopped for tables to be read again. */
        Resnapshot suspended;
        /** Removals held back, by table and key ({@link HeldDelete}). */
        final java.util.Map<HeldKey, HeldDelete> held = new java.util.LinkedHashMap<>();

        Stream(StreamSplit split) {
            this.split = split;
            for (HeldDelete h : split.held()) held.put(new HeldKey(h.table(), h.key()), h);
            this.lsn = split.lsn();
            this.partialEndLsn = split.partialEndLsn();
            this.partialCount = split.partialCount();
        }

        @Override
        StreamSplit toSplit() {
            return split.at(lsn, partialEndLsn, partialCount).holding(List.copyOf(held.values())).suspendedFor(suspended);
        }
    }
}
