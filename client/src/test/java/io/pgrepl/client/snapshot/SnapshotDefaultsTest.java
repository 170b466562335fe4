package io.pgrepl.client.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.stream.LogicalReplicationOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a library user gets without asking: a slot that does not outlive the program, LSNs as the server prints them. */
class SnapshotDefaultsTest {
    @Test
    void theImplicitSlotIsTemporaryUnlessAskedOtherwise() {
        LogicalReplicationOptions s = LogicalReplicationOptions.builder("s").publications("p").build();
        assertTrue(SnapshotOptions.of(s).slot().temporary(), "nothing left behind to hold WAL");
        SnapshotOptions permanent = SnapshotOptions.of(s).withSlot(SnapshotOptions.of(s).slot().withTemporary(false));
        assertFalse(permanent.slot().temporary());
        assertEquals("pgoutput", permanent.slot().plugin());
    }

    @Test
    void resultPrintsTheConsistentPointAsTheServerDoes() {
        SnapshotResult r = new SnapshotResult("s", 0x16B3748L, "00000003-00000002-1", List.of("public.t"), 42);
        assertEquals("SnapshotResult[slotName=s, consistentPoint=0/16B3748, snapshotName=00000003-00000002-1,"
                + " tables=[public.t], rows=42]", r.toString());
    }
}
