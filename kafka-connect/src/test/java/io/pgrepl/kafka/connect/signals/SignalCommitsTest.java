package io.pgrepl.kafka.connect.signals;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.offsets.SignalOffsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * The group position follows the in-order prefix of acknowledged records, one offset commit late:
 * a record acknowledged out of order (another partition, a faster broker) moves nothing until every
 * record handed over before it was acknowledged too.
 */
class SignalCommitsTest {
    private static SourceRecord record(long signalPosition) {
        String state = SignalOffsets.with("pgrepl-inc 1\nt public.t - -", signalPosition);
        Map<String, Object> offset = Map.of("lsn", 100L, Position.INCREMENTAL_STATE, state);
        return new SourceRecord(Map.of("server", "p"), offset, "p.public.t", null, null, null, null);
    }

    @Test
    void onlyWhatTheCommittedOffsetsHoldAndOneCommitLate() {
        SignalCommits c = new SignalCommits();
        SourceRecord before = new SourceRecord(Map.of("server", "p"), Map.of("lsn", 90L), "p.public.t", null, null, null, null);
        SourceRecord a1 = record(1);
        SourceRecord a2 = record(1);
        SourceRecord b = record(3);
        c.handedOver(List.of(before, a1, a2, b));
        c.acknowledged(b); // out of order: a1, a2 and before are still in flight
        c.acknowledged(a2);
        assertEquals(-1, c.offsetsCommitted());
        assertEquals(-1, c.offsetsCommitted(), "nothing in order was acknowledged yet");
        c.acknowledged(before);
        assertEquals(-1, c.offsetsCommitted(), "the prefix ends before position 1");
        c.acknowledged(a1);
        assertEquals(-1, c.offsetsCommitted(), "records without a position leave none to commit");
        assertEquals(3, c.offsetsCommitted(), "everything was acknowledged before the previous commit");
        SourceRecord d = record(4);
        c.handedOver(List.of(d));
        assertEquals(3, c.offsetsCommitted());
        c.acknowledged(d);
        assertEquals(3, c.offsetsCommitted());
        assertEquals(4, c.offsetsCommitted());
    }
}
