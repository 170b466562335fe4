package io.pgrepl.benchmarks.drain;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.PgOutputMessage;
import io.pgrepl.codec.pgoutput.TupleView;

/**
 * The {@code flow} drain client: the Flow face's recycled views ({@link ReactiveReplication#views}),
 * the demand of {@code -Ddrain.demand} ({@link Demand}), every column read in place as the handler
 * client reads it, each commit acknowledged.
 */
final class FlowDrain {
    private FlowDrain() {}

    static long[] drain(PgConnection conn, LogicalReplicationOptions options, long end, FlowOptions flow) throws Exception {
        try (conn) {
            ReplicationPublisher<ChangeView> publisher = ReactiveReplication.views(conn, options, flow);
            return Demand.drain(publisher, (v, rowsSum) -> consume(v, rowsSum, end));
        }
    }

    /**
     * One view as the handler client reads its message: an Insert's three integers parsed and its
     * text and timestamp touched in place; a Commit acknowledged.
     *
     * @return true at the commit that ends the drain
     */
    static boolean consume(ChangeView v, long[] rowsSum, long end) {
        PgOutputMessage m = v.message();
        if (m instanceof InsertMessage i) {
            if (rowsSum[0]++ == 0) DrainClient.firstChange();
            TupleView t = i.newTuple();
            long sum = t.int4(0) + t.int4(1) + t.int8(2);
            for (int c = 3; c < 5; c++) {
                if (t.kind(c) == ColumnKind.NULL) continue;
                sum += t.valueLength(c) + t.buffer().getByte(t.valueIndex(c));
            }
            rowsSum[1] += sum;
        } else if (m instanceof CommitMessage c) {
            v.acknowledge();
            return Long.compareUnsigned(c.endLsn(), end) >= 0;
        }
        return false;
    }
}
