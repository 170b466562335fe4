package io.pgrepl.examples;

import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.UpdateMessage;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Example 1, the handler face: callbacks on the event loop with views over the receive buffer
 * (nothing copied). Counts rows per table and acknowledges each commit once counted, since the
 * counts are all this example keeps.
 */
public final class RowCountsPerTable {
    public static void main(String[] args) throws Exception {
        int transactions = 20;
        int ordersPerTx = 50;
        try (ExampleDatabase db = ExampleDatabase.open(args)) {
            Map<String, Integer> counts = new TreeMap<>(); // event loop only, until the stream stops
            CountDownLatch allCommitted = new CountDownLatch(transactions);
            LogicalStreamHandler handler = new LogicalStreamHandler() {
                private LogicalReplicationStream stream;

                @Override
                public void onStarted(LogicalReplicationStream s) {
                    stream = s;
                }

                private void count(RelationInfo r) {
                    counts.merge(r.schema() + "." + r.name(), 1, Integer::sum);
                }

                @Override
                public void onInsert(InsertMessage m) {
                    count(m.relation());
                }

                @Override
                public void onUpdate(UpdateMessage m) {
                    count(m.relation());
                }

                @Override
                public void onDelete(DeleteMessage m) {
                    count(m.relation());
                }

                @Override
                public void onCommit(CommitMessage m) {
                    stream.acknowledge(m.endLsn());
                    allCommitted.countDown();
                }
            };
            LogicalReplicationStream stream = db.replication.startLogical(db.options().build(), handler);
            db.workload(transactions, ordersPerTx);
            if (!allCommitted.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("timed out");
            ExampleDatabase.await(stream.stop());
            System.out.println("rows per table: " + counts);
            System.out.println("acknowledged up to " + io.pgrepl.codec.Lsn.format(stream.acknowledgedLsn()));
        }
    }
}
