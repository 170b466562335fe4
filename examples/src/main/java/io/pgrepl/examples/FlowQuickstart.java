package io.pgrepl.examples;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import java.util.concurrent.Flow;

/**
 * The library guide's Flow-face program: the same output as {@link HandlerQuickstart}, from copied
 * records on a subscriber thread, with demand driving the socket. Usage:
 * {@code FlowQuickstart URL PUBLICATION [TRANSACTIONS]}.
 */
public final class FlowQuickstart {
    public static void main(String[] args) throws Exception {
        String url = args[0];         // postgresql://repl_user:secret@localhost:5432/app?replication=database
        String publication = args[1];
        long stopAfter = args.length > 2 ? Long.parseLong(args[2]) : Long.MAX_VALUE;

        PgConnection conn = PgConnection.connect(url).toCompletableFuture().join();
        conn.createReplicationSlot(CreateSlotOptions.logical("quickstart_flow", "pgoutput").withTemporary(true))
                .toCompletableFuture().join();

        ReplicationPublisher<ChangeEvent> changes = ReactiveReplication.changes(conn,
                LogicalReplicationOptions.builder("quickstart_flow").publications(publication).build(),
                FlowOptions.defaults());
        changes.subscribe(new Flow.Subscriber<ChangeEvent>() {
            private Flow.Subscription subscription;
            private long commits;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(64);
            }

            @Override
            public void onNext(ChangeEvent e) {
                if (e.record() instanceof Insert insert) {
                    StringBuilder line = new StringBuilder("insert into ").append(e.table()); // each change carries its relation
                    for (ColumnValue c : insert.newTuple().columns()) {
                        line.append(' ').append(c.name()).append('=').append(c.decode()); // typed, as in the handler face
                    }
                    System.out.println(line);
                } else if (e.record() instanceof Commit) {
                    e.acknowledge();                // confirms the commit's end LSN
                    if (++commits == stopAfter) {
                        subscription.cancel();      // stops the stream cleanly (CopyDone)
                        return;
                    }
                }
                subscription.request(1);
            }

            @Override
            public void onError(Throwable t) {
                System.err.println("replication failed: " + t);
            }

            @Override
            public void onComplete() {
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> changes.stream().stop().toCompletableFuture().join()));

        changes.terminated().toCompletableFuture().join();
        conn.close();
    }
}
