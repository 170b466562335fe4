package io.pgrepl.benchmarks.decode;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgrepl.testkit.PgServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The decode benchmark's inputs are what their names say (every row, old keys, binary values, a
 * transaction in several stream blocks: checked by {@link Census} in the setup), every path runs on
 * them, and Debezium's decoder turns each of its inputs into one change per row. No speed is asserted.
 */
class DecodePathsInputsTest {
    private static PgServer server;
    private static final Blackhole BH = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");

    @BeforeAll
    static void start() {
        server = DecodeInputs.start();
    }

    @AfterAll
    static void stop() throws Exception {
        BH.evaporate("Yes, I am Stephen Hawking, and know a thing or two about black holes.");
        server.close();
    }

    @Test
    void everyInputDecodesOnEveryPath() throws Exception {
        for (String input : List.of("narrow", "wide", "update_old_key", "binary", "streamed")) {
            DecodePathsBenchmark b = new DecodePathsBenchmark();
            b.input = input;
            b.prepare(BH, server); // throws if the capture is not what the input claims
            assertTrue(b.offsets.length >= DecodeInputs.ROWS + 2, input + ": a begin, the rows and a commit at least");
            assertNotEquals(0, b.scan(), input);
            assertNotEquals(0, b.views(), input);
            b.records();
            b.records_columns();
            DebeziumDecoder d = new DebeziumDecoder();
            if (input.equals("binary") || input.equals("streamed")) {
                assertThrows(UnsupportedOperationException.class, () -> d.setup(b), input);
            } else {
                d.setup(b); // throws unless Debezium produced one change with columns per row
                assertNotEquals(0, d.decodeAll(false), input);
                d.tearDown();
            }
            b.tearDown();
        }
    }
}
