package io.pgrepl.it.stream;

import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.BeginPrepareMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.CommitPreparedMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.OriginMessage;
import io.pgrepl.codec.pgoutput.PrepareMessage;
import io.pgrepl.codec.pgoutput.RelationMessage;
import io.pgrepl.codec.pgoutput.RollbackPreparedMessage;
import io.pgrepl.codec.pgoutput.StreamAbortMessage;
import io.pgrepl.codec.pgoutput.StreamCommitMessage;
import io.pgrepl.codec.pgoutput.StreamStartMessage;
import io.pgrepl.codec.pgoutput.StreamStopMessage;
import io.pgrepl.codec.pgoutput.TruncateMessage;
import io.pgrepl.codec.pgoutput.TypeMessage;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.codec.replication.XLogData;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what arrives (type bytes, inserted first-column values, commit end LSNs); copies out of the views. */
class RecordingHandler implements LogicalStreamHandler {
    final Set<Character> types = ConcurrentHashMap.newKeySet();
    /** "I:<first column text>" per insert, in order. */
    final List<String> inserts = new CopyOnWriteArrayList<>();
    final List<Long> commitEnds = new CopyOnWriteArrayList<>();
    final List<String> originNames = new CopyOnWriteArrayList<>();
    volatile LogicalReplicationStream stream;
    volatile boolean sawZeroWalStart;

    @Override
    public void onStarted(LogicalReplicationStream s) {
        stream = s;
    }

    @Override
    public void onXLogData(XLogData h) {
        long w = h.walStart();
        if (w == 0) {
            sawZeroWalStart = true;
        }
    }

    final List<Character> sequence = new CopyOnWriteArrayList<>();

    private void t(char c) {
        types.add(c);
        sequence.add(c);
    }

    long count(char c) {
        return sequence.stream().filter(x -> x == c).count();
    }

    @Override public void onBegin(BeginMessage m) { t('B'); }
    @Override public void onCommit(CommitMessage m) { t('C'); commitEnds.add(m.endLsn()); }
    @Override public void onOrigin(OriginMessage m) { t('O'); originNames.add(m.name()); }
    @Override public void onRelation(RelationMessage m) { t('R'); }
    @Override public void onType(TypeMessage m) { t('Y'); }
    @Override public void onInsert(InsertMessage m) { t('I'); inserts.add(m.newTuple().text(0)); }
    @Override public void onUpdate(UpdateMessage m) { t('U'); }
    @Override public void onDelete(DeleteMessage m) { t('D'); }
    @Override public void onTruncate(TruncateMessage m) { t('T'); }
    @Override public void onMessage(LogicalMessage m) { t('M'); }
    @Override public void onStreamStart(StreamStartMessage m) { t('S'); }
    @Override public void onStreamStop(StreamStopMessage m) { t('E'); }
    @Override public void onStreamCommit(StreamCommitMessage m) { t('c'); commitEnds.add(m.endLsn()); }
    @Override public void onStreamAbort(StreamAbortMessage m) { t('A'); }
    @Override public void onBeginPrepare(BeginPrepareMessage m) { t('b'); }
    @Override public void onPrepare(PrepareMessage m) { t('P'); }
    @Override public void onCommitPrepared(CommitPreparedMessage m) { t('K'); }
    @Override public void onRollbackPrepared(RollbackPreparedMessage m) { t('r'); }
}
