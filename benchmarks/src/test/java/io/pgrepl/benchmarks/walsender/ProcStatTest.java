package io.pgrepl.benchmarks.walsender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.benchmarks.walsender.WalsenderCost.Case;
import io.pgrepl.benchmarks.walsender.WalsenderCost.Drain;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcStatTest {
    /** A PostgreSQL backend's line, read from /proc on Linux 6.18: utime 6, stime 14 (fields 14 and 15). */
    private static final String BACKEND = "18262 (postgres) S 18261 18262 18262 0 -1 4194368 1215 0 0 0 6 14 0 0 20 0 1 0"
            + " 1199232 99389440 2386 18446744073709551615 94148482826240 94148491312728 140720578597520 0 0 0 4194304"
            + " 19951616 536939015 1 0 0 17 1 0 0 0 0 0 94148493413680 94148493668856 94148577701888 140720578599522"
            + " 140720578599621 140720578599621 140720578600903 0";

    @Test
    void userAndSystemTicksAreFieldsFourteenAndFifteen() {
        ProcStat s = ProcStat.parse(BACKEND);
        assertEquals(18262, s.pid());
        assertEquals(6, s.userTicks());
        assertEquals(14, s.systemTicks());
    }

    @Test
    void aCommandNameWithSpacesAndParenthesesDoesNotShiftTheFields() {
        // The same line for a process that named itself "x) 1 2 (y": counting fields from the first ')' would
        // take "2" and "(y" for the third and fourth.
        ProcStat s = ProcStat.parse(BACKEND.replace("(postgres)", "(x) 1 2 (y)"));
        assertEquals(6, s.userTicks());
        assertEquals(14, s.systemTicks());
    }

    @Test
    void cpuBetweenTwoSamplesIsInMicroseconds() {
        ProcStat before = new ProcStat(7, 100, 50);
        ProcStat after = new ProcStat(7, 350, 75);
        assertEquals(2_750_000, after.microsSince(before)); // 275 ticks of 10 ms
        assertThrows(IllegalArgumentException.class, () -> after.microsSince(new ProcStat(8, 0, 0)));
    }

    @Test
    void thisProcessReadsItself() throws Exception {
        ProcStat self = ProcStat.self();
        assertEquals(ProcessHandle.current().pid(), self.pid());
        assertTrue(self.userTicks() > 0, "a JVM that has loaded JUnit has used some CPU: " + self);
    }

    @Test
    void aTruncatedLineIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ProcStat.parse("18262 (postgres) S 18261 18262"));
        assertThrows(IllegalArgumentException.class, () -> ProcStat.parse("no fields here"));
    }

    @Test
    void aCaseSumsItsSlotsAndDividesByTheInsertsWritten() {
        Case two = WalsenderCost.CASES.stream().filter(c -> c.slots() == 2).findFirst().orElseThrow();
        Drain a = WalsenderCost.parse(0, two, "r0_slots_2_0", "rows=400001 sum=9 walsender_pid=11 walsender_user_us=900000"
                + " walsender_sys_us=100000 client_us=4000000 wall_ms=5000\n", "1.0");
        Drain b = WalsenderCost.parse(0, two, "r0_slots_2_1", "some JVM warning\nrows=400001 sum=9 walsender_pid=12"
                + " walsender_user_us=2000000 walsender_sys_us=1000000 client_us=4000000 wall_ms=6000\n", "1.0");
        WalsenderCostReport.Cell c = WalsenderCostReport.cell(List.of(a, b), 0, two, 400_000);
        assertEquals(10.0, c.walsenderUsPerChange(), 1e-9); // (1.0 + 3.0) s over 400,000 inserts
        assertEquals(0.275, c.sysShare(), 1e-9); // 1.1 of 4.0 s in the kernel
        assertEquals(20.0, c.clientUsPerChange(), 1e-9);
        assertEquals(6.0, c.wallSeconds(), 1e-9);
        assertThrows(IllegalStateException.class, () -> WalsenderCostReport.cell(List.of(a), 0, two, 400_000));
    }
}
