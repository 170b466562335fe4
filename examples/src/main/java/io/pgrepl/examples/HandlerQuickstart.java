package io.pgrepl.examples;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;

/**
 * The library guide's handler-face program: prints every inserted row with typed values and acknowledges
 * each commit. Usage: {@code HandlerQuickstart URL PUBLICATION [TRANSACTIONS]}, where URL has
 * {@code replication=database}; it stops after TRANSACTIONS commits, or on Ctrl-C.
 */
public final class HandlerQuickstart {
    public static void main(String[] args) throws Exception {
        String url = args[0];         // postgresql://repl_user:secret@localhost:5432/app?replication=database
        String publication = args[1]; // CREATE PUBLICATION app_pub FOR TABLE ...
        long stopAfter = args.length > 2 ? Long.parseLong(args[2]) : Long.MAX_VALUE;

        PgConnection conn = PgConnection.connect(url).toCompletableFuture().join();
        // A temporary slot is dropped with the connection; a permanent one lets a restart resume.
        conn.createReplicationSlot(CreateSlotOptions.logical("quickstart", "pgoutput").withTemporary(true))
                .toCompletableFuture().join();

        LogicalStreamHandler handler = new LogicalStreamHandler() {
            private LogicalReplicationStream stream;
            private long commits;

            @Override
            public void onStarted(LogicalReplicationStream s) {
                stream = s;
            }

            @Override
            public void onInsert(InsertMessage m) { // on the event loop: don't block here
                TupleView row = m.newTuple();       // a view over the receive buffer, valid during this call
                StringBuilder line = new StringBuilder("insert into ").append(m.relation().name());
                for (int i = 0; i < row.columnCount(); i++) {
                    Object value = row.decode(i);   // Integer, BigDecimal, Instant, String, List, ... or null
                    line.append(' ').append(row.column(i).name()).append('=').append(value);
                }
                System.out.println(line);
            }

            @Override
            public void onCommit(CommitMessage m) {
                stream.acknowledge(m.endLsn());     // done with it: the server may now recycle its WAL
                if (++commits == stopAfter) stream.stop();
            }
        };
        LogicalReplicationStream stream = conn.startLogical(
                LogicalReplicationOptions.builder("quickstart").publications(publication).build(), handler);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stream.stop().toCompletableFuture().join()));

        stream.completion().toCompletableFuture().join(); // stop(): final status update, CopyDone, drained
        conn.close();
    }
}
