package io.pgrepl.flink.internal;

import java.util.ArrayDeque;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

/**
 * The fetcher thread's side of a reader: snapshot splits one piece per fetch, in the order
 * assigned, or the stream split. The stream is shared with the task thread through
 * {@link StreamLink}, which confirms the slot there when checkpoints complete.
 */
final class PgreplSplitReader implements SplitReader<Element, PgreplSplit> {
    private final Settings settings;
    private final StreamLink link;
    private final ArrayDeque<SnapshotSplit> snapshots = new ArrayDeque<>();
    private final SnapshotFetch snapshotFetch;
    private StreamSplit pendingStream;
    private StreamFetch stream;

    PgreplSplitReader(Settings settings, StreamLink link) {
        this.settings = settings;
        this.link = link;
        this.snapshotFetch = new SnapshotFetch(settings);
    }

    @Override
    public RecordsWithSplitIds<Element> fetch() throws java.io.IOException {
        RecordsBySplits.Builder<Element> out = new RecordsBySplits.Builder<>();
        SnapshotSplit s = snapshots.peekFirst();
        if (s != null) {
            SnapshotSplit next = snapshotFetch.next(s, out);
            snapshots.pollFirst();
            if (next.finished()) {
                out.addFinishedSplit(s.id());
                if (snapshots.isEmpty()) snapshotFetch.close(); // the connection is not needed until another split comes
            } else {
                snapshots.addFirst(next);
            }
            return out.build();
        }
        if (pendingStream != null) {
            StreamFetch f = new StreamFetch(settings, pendingStream);
            pendingStream = null;
            f.open();
            stream = f;
            link.attach(f);
        }
        if (stream != null) {
            try {
                stream.fetch(out);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.IOException("interrupted while reading the stream", e);
            }
            if (stream.finished()) {
                // ended or suspended: the slot is let go, a later stream split opens its own
                link.attach(null);
                stream.close();
                stream = null;
            }
        }
        return out.build();
    }

    @Override
    public void handleSplitsChanges(SplitsChange<PgreplSplit> change) {
        if (!(change instanceof SplitsAddition)) throw new UnsupportedOperationException("unsupported split change " + change);
        for (PgreplSplit s : change.splits()) {
            if (s instanceof SnapshotSplit snap) snapshots.addLast(snap);
            else if (s instanceof StreamSplit st) pendingStream = st;
        }
    }

    @Override
    public void wakeUp() {
        StreamFetch f = stream;
        if (f != null) f.wakeUp();
    }

    @Override
    public void close() {
        snapshotFetch.close();
        link.attach(null);
        if (stream != null) stream.close();
        stream = null;
    }
}
