package io.pgrepl.benchmarks.drain;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DrainReportThreadsTest {
    /** A client's report line as DrainClient prints it (taken from a 1M drain's log). */
    private static final String LINE = "rows=1000000 sum=1 connected_ms=2100 first_change_ms=2464 end_ms=23079"
            + " cpu_s: gc+vm=0.00 jit=0.64 loop=0.86 main=0.27 other=0.01 wakes: gc+vm=154 jit=2748 loop=1548 flow=12 main=41"
            + " heap: G1_Eden_Space=16/20";

    @Test
    void eachThreadKindIsReadFromTheCpuPartOnly() {
        assertEquals(0.64, DrainReport.threadSeconds(LINE, "jit"));
        assertEquals(0.86, DrainReport.threadSeconds(LINE, "loop"));
        assertEquals(0.27, DrainReport.threadSeconds(LINE, "main"));
        assertEquals(0.01, DrainReport.threadSeconds(LINE, "other"));
        // Not the wake count of the same name, which follows.
        assertEquals(0.0, DrainReport.threadSeconds(LINE, "flow"));
    }

    @Test
    void pgjdbcHasNoEventLoop() {
        String pgjdbc = "rows=1 sum=1 cpu_s: gc+vm=0.00 jit=0.53 main=0.86 other=0.00 wakes: main=4054";
        assertEquals(0.0, DrainReport.threadSeconds(pgjdbc, "loop"));
        assertEquals(0.86, DrainReport.threadSeconds(pgjdbc, "main"));
    }
}
