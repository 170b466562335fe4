package io.pgrepl.client.snapshot.incremental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pieces of the drop rule and the saved state, without a server. */
class WindowRulesTest {

    @Test
    void snapshotVisibilityFollowsXminXmaxAndXip() {
        XidSnapshot s = XidSnapshot.parse("100:110:102,105");
        assertTrue(s.sees(99));
        assertTrue(s.sees(101));
        assertFalse(s.sees(102), "in progress at the snapshot");
        assertFalse(s.sees(105));
        assertTrue(s.sees(109));
        assertFalse(s.sees(110), "xmax and later: not yet started");
        assertFalse(s.sees(4000));
        assertTrue(s.precedesXmin(99));
        assertFalse(s.precedesXmin(100));
    }

    @Test
    void streamXidsAreWidenedIntoTheSnapshotsEpoch() {
        // epoch 1: 64-bit ids 2^32 + n; the stream shows the low 32 bits.
        long e = 1L << 32;
        XidSnapshot s = XidSnapshot.parse((e + 5) + ":" + (e + 20) + ":" + (e + 7));
        assertTrue(s.sees(4));
        assertFalse(s.sees(7));
        assertTrue(s.sees(8));
        assertFalse(s.sees(21));
        // just before the wraparound: xid 0xFFFFFFF0 is in the previous epoch, before xmin
        assertTrue(s.sees(0xFFFFFFF0L));
        assertEquals(e - 16, s.widen(0xFFFFFFF0L));
    }

    @Test
    void malformedSnapshotTextIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> XidSnapshot.parse("1:2"));
        assertThrows(IllegalArgumentException.class, () -> XidSnapshot.parse("a:2:"));
        assertThrows(IllegalArgumentException.class, () -> XidSnapshot.parse("5:2:"));
    }

    @Test
    void aTouchConflictsWhenCommittedAfterTheLowMarkOrUnseenBySnapshot() {
        XidSnapshot s = XidSnapshot.parse("100:110:104");
        TouchLog log = new TouchLog();
        log.touch("a", 90, 1000);   // before the low mark, seen
        log.touch("b", 104, 1000);  // before the low mark, but not seen: the proc-array race
        log.touch("c", 95, 3000);   // after the low mark
        log.touch("d", 111, 900);   // not seen (after xmax)
        assertFalse(log.conflicts("a", 2000, s));
        assertTrue(log.conflicts("b", 2000, s));
        assertTrue(log.conflicts("c", 2000, s));
        assertTrue(log.conflicts("d", 2000, s));
        assertFalse(log.conflicts("zz", 2000, s));
        assertFalse(log.truncatedSince(2000, s));
        log.truncate(106, 2500);
        assertTrue(log.truncatedSince(2000, s));
    }

    @Test
    void pruningKeepsWhatALaterSnapshotCouldStillMiss() {
        TouchLog log = new TouchLog();
        log.touch("old", 90, 1000);
        log.touch("recent", 120, 1000);
        log.touch("late", 95, 5000);
        log.prune(XidSnapshot.parse("100:130:120"), 2000);
        assertEquals(2, log.size(), "old is gone; recent (not before xmin) and late (after the LSN floor) stay");
        assertTrue(log.conflicts("recent", 9000, XidSnapshot.parse("110:130:120")));
        assertFalse(log.conflicts("old", 0, XidSnapshot.parse("100:130:")));
    }

    @Test
    void stateRoundTripsAndRejectsGarbage() {
        List<ProgressState.Table> tables = List.of(
                new ProgressState.Table("public.a b", "x = 'y z'", "k", List.of(
                        new ProgressState.Range(null, List.of("500"), List.of("499"), false),
                        new ProgressState.Range(List.of("500"), null, null, true))),
                new ProgressState.Table("s.t", null, null, null),
                new ProgressState.Table("s.\"Q\"", null, null, List.of(new ProgressState.Range(null, null, Arrays.asList("1", "a,b\n\t%"), false))));
        String enc = ProgressState.encode(tables);
        assertEquals(tables, ProgressState.decode(enc));
        assertThrows(IllegalArgumentException.class, () -> ProgressState.decode("nope"));
        assertThrows(IllegalArgumentException.class, () -> ProgressState.decode(ProgressState.HEADER + "\nr - - - 0"));
        assertThrows(IllegalArgumentException.class, () -> ProgressState.decode(ProgressState.HEADER + "\nt a - -\nr - - - 2"));
    }
}
