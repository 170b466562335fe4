package io.pgrepl.it.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.ChangeView;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.schema.DdlCapture;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.snapshot.incremental.IncrementalFlow;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import io.pgrepl.testkit.schema.ObservedChange;
import io.pgrepl.testkit.schema.Rebuilt;
import io.pgrepl.testkit.schema.SchemaScript;
import io.pgrepl.testkit.schema.SchemaScriptRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link SchemaScript} (more than 20 DDL statements between rows) streamed through the handler, Flow
 * (records and recycled views) and blocking faces: every schema-change event equals what the catalog
 * said at that point (read by the script after each step, compared by attnum with DDL capture, by
 * name without), in order; the tables rebuilt from the events and rows equal the source at the end,
 * names and columns included. PostgreSQL 18 with DDL capture installed, 10 without (pgoutput sends
 * no logical messages before 14).
 */
class SchemaChangeScriptTest {
    private static final String[] FACES = {"sc_handler", "sc_flow", "sc_views", "sc_blocking"};

    @PgMatrixTest(newestAndOldest = true)
    void everyFaceReportsWhatTheCatalogSays(PgServer s) throws Exception {
        boolean capture = s.majorVersion() >= 14;
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            await(DdlCapture.uninstall(sql));
            if (capture) {
                await(DdlCapture.install(sql));
                assertEquals(DdlCapture.Status.ENABLED, await(DdlCapture.status(sql)));
            }
        }
        SchemaScriptRun run = SchemaScriptRun.setUp(s, "postgres");
        for (String slot : FACES) {
            s.dropReplicationSlotIfExists(slot);
            s.sql("postgres", "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
        assertTrue(SchemaScriptRun.ddlStatements() >= 20, "the script runs at least 20 DDL statements");
        run.runSteps();
        try {
            int done = run.oid(SchemaScript.DONE);
            Face handler = handlerFace(s, options("sc_handler", capture), done);
            run.assertEvents("handler face", handler.events, capture);
            run.assertRebuilt("handler face", handler.rebuilt, capture);

            Face flow = flowFace(s, options("sc_flow", capture), done);
            run.assertEvents("Flow face", flow.events, capture);
            run.assertRebuilt("Flow face", flow.rebuilt, capture);

            Face views = viewsFace(s, options("sc_views", capture), done);
            run.assertEvents("Flow face (views)", views.events, capture);
            run.assertRebuilt("Flow face (views)", views.rebuilt, capture);

            Face blocking = blockingFace(s, options("sc_blocking", capture), done);
            run.assertEvents("blocking face", blocking.events, capture);
            run.assertRebuilt("blocking face", blocking.rebuilt, capture);
        } finally {
            for (String slot : FACES) s.dropReplicationSlot(slot);
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                await(DdlCapture.uninstall(sql));
            }
        }
    }

    /**
     * The script while an incremental snapshot reads {@code sc_plain} (8000 rows more, written before the
     * slot, so only the snapshot brings them), started after the first step and paced so that it reads
     * across the table's ALTER TABLEs (a column added, one dropped and added again as bigint, the key
     * widened by a rewrite): the Flow face's events equal the catalog's, every read comes in the shape
     * the table's last schema-change event announced, and the tables rebuilt from reads, rows and
     * events equal the source. 18 with DDL capture and message watermarks, 10 without, read-only ones.
     */
    @PgMatrixTest(newestAndOldest = true)
    void whileAnIncrementalSnapshotRuns(PgServer s) throws Exception {
        boolean capture = s.majorVersion() >= 14;
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            await(DdlCapture.uninstall(sql));
            if (capture) await(DdlCapture.install(sql));
        }
        SchemaScriptRun run = SchemaScriptRun.setUp(s, "postgres");
        s.sql("postgres", "INSERT INTO sc_plain SELECT g, 'bulk ' || g FROM generate_series(100, 8099) g");
        s.dropReplicationSlotIfExists("sc_inc");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('sc_inc', 'pgoutput')");
        Face face = new Face(capture);
        int done = run.oid(SchemaScript.DONE);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<ChangeEvent> events = new CopyOnWriteArrayList<>();
        AtomicLong reads = new AtomicLong();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncrementalOptions inc = IncrementalOptions
                    .of(ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                            .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).build())
                    .withChunkSize(100);
            if (!capture) inc = inc.withWatermarks(WatermarkMode.READ_ONLY);
            IncrementalFlow flow = IncrementalFlow.changes(repl, options("sc_inc", capture), FlowOptions.defaults(), inc);
            Flow.Subscription[] sub = new Flow.Subscription[1];
            flow.publisher().subscribe(new Flow.Subscriber<>() {
                public void onSubscribe(Flow.Subscription x) {
                    sub[0] = x;
                    x.request(Long.MAX_VALUE);
                }

                public void onNext(ChangeEvent e) {
                    events.add(e);
                    if (e.snapshotRead()) reads.incrementAndGet();
                }

                public void onError(Throwable t) {
                    errors.add(t);
                }

                public void onComplete() {}
            });
            // Paced: the snapshot reads a little after the first step, then before each ALTER TABLE of
            // sc_plain (steps 20 to 22) it runs until more rows came out and pauses (the chunk in flight
            // completes), so chunks are read and emitted across those statements rather than all at once.
            List<SchemaScript.Step> steps = SchemaScript.steps();
            run.runSteps(i -> {
                if (i == 0) flow.snapshots().execute("public.sc_plain");
                else if (i + 1 < steps.size() && steps.get(i + 1).ddlOn().contains(SchemaScript.PLAIN)) flow.snapshots().resume();
                else return;
                long before = reads.get();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (reads.get() == before && errors.isEmpty() && System.nanoTime() < until) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                flow.snapshots().pause();
            });
            flow.snapshots().resume();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (errors.isEmpty() && System.nanoTime() < deadline) {
                boolean sawDone = events.stream().anyMatch(e -> e.record() instanceof Commit)
                        && events.stream().anyMatch(e -> e.record() instanceof Insert i && i.relationOid() == done);
                if (sawDone && await(flow.snapshots().progress()).isEmpty()) break;
                Thread.sleep(20);
            }
            // The engine ends the table when its last chunk is emitted; the chunk's reads reach this
            // subscriber on the flow's delivery thread after that: wait until they stop coming.
            for (long seen = -1; reads.get() != seen; ) {
                seen = reads.get();
                Thread.sleep(500);
            }
            assertEquals(List.of(), errors);
            sub[0].cancel();
            flow.snapshots().close();
        } finally {
            dropWhenInactive(s, "sc_inc");
            try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
                await(DdlCapture.uninstall(sql));
            }
        }
        long readCount = 0;
        int plain = run.oid(SchemaScript.PLAIN);
        // The pacing worked: the snapshot's reads came before sc_plain's first ALTER event and after its last.
        int firstAlter = -1;
        int lastAlter = -1;
        for (int k = 0; k < events.size(); k++) {
            SchemaChange c = events.get(k).schemaChange();
            if (c != null && c.relationId() == plain && c.kind() == SchemaChange.Kind.ALTER) {
                if (firstAlter < 0) firstAlter = k;
                lastAlter = k;
            }
        }
        assertTrue(firstAlter >= 0, "sc_plain's ALTER events");
        assertTrue(events.subList(0, firstAlter).stream().anyMatch(ChangeEvent::snapshotRead), "reads before sc_plain's first ALTER");
        assertTrue(events.subList(lastAlter, events.size()).stream().anyMatch(ChangeEvent::snapshotRead), "reads after its last");
        for (ChangeEvent e : events) {
            if (e.snapshotRead()) {
                if (e.schemaChange() != null) face.schema(e.schemaChange());
                readCount++;
                Insert i = (Insert) e.record();
                List<String> key = new ArrayList<>();
                List<String> shape = new ArrayList<>();
                for (var c : e.relation().columns()) {
                    if (c.isKey()) key.add(c.name());
                    shape.add(c.name() + ":" + Integer.toUnsignedString(c.typeOid()));
                }
                face.rebuilt.read(i.relationOid(), shape, Observe.values(i.newTuple(), e.relation(), false), key);
            } else {
                record(face, e, done);
            }
        }
        // Most rows come as reads; one the script changes while its chunk is read comes by the stream instead.
        assertTrue(readCount > 7000, "the snapshot's reads: " + readCount);
        run.assertEvents("Flow face with an incremental snapshot", face.events, capture);
        run.assertRebuilt("Flow face with an incremental snapshot", face.rebuilt, capture);
    }

    /** What one face delivered: its schema-change events, and the tables its rows and events rebuild. */
    static final class Face {
        final List<ObservedChange> events = new ArrayList<>();
        final Rebuilt rebuilt;
        boolean done;

        Face(boolean capture) {
            rebuilt = new Rebuilt(!capture);
        }

        void schema(SchemaChange c) {
            ObservedChange o = Observe.change(c);
            events.add(o);
            rebuilt.schema(o);
        }
    }

    private static Face handlerFace(PgServer s, LogicalReplicationOptions options, int done) throws Exception {
        Face face = new Face(options.messages() != null);
        CompletableFuture<Void> finished = new CompletableFuture<>();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            LogicalReplicationStream stream = repl.startLogical(options, new LogicalStreamHandler() {
                @Override
                public void onSchemaChange(SchemaChange change) {
                    face.schema(change);
                }

                @Override
                public void onInsert(InsertMessage m) {
                    if (m.relation().oid() == done) face.done = true;
                    face.rebuilt.insert(m.relation().oid(), Observe.values(m.newTuple(), false));
                }

                @Override
                public void onUpdate(UpdateMessage m) {
                    face.rebuilt.update(m.relation().oid(), m.hasOldTuple() ? Observe.values(m.oldTuple(), m.oldTupleKind() == 'K') : null,
                            Observe.values(m.newTuple(), false));
                }

                @Override
                public void onDelete(DeleteMessage m) {
                    face.rebuilt.delete(m.relation().oid(), Observe.values(m.oldTuple(), m.oldTupleKind() == 'K'));
                }

                @Override
                public void onCommit(CommitMessage m) {
                    if (face.done) finished.complete(null);
                }
            });
            stream.completion().whenComplete((v, e) -> {
                if (e != null) finished.completeExceptionally(e);
            });
            try {
                finished.get(120, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new AssertionError("handler face: " + e.getCause(), e.getCause().getCause() != null ? e.getCause().getCause() : e.getCause());
            }
            await(stream.stop());
        }
        return face;
    }

    private static void record(Face face, ChangeEvent e, int done) {
        if (e.schemaChange() != null) face.schema(e.schemaChange());
        if (e.record() instanceof Insert i) {
            if (i.relationOid() == done) face.done = true;
            face.rebuilt.insert(i.relationOid(), Observe.values(i.newTuple(), e.relation(), false));
        } else if (e.record() instanceof Update u) {
            face.rebuilt.update(u.relationOid(), u.oldTuple() == null ? null : Observe.values(u.oldTuple(), e.relation(), u.oldTupleKind() == 'K'),
                    Observe.values(u.newTuple(), e.relation(), false));
        } else if (e.record() instanceof Delete d) {
            face.rebuilt.delete(d.relationOid(), Observe.values(d.oldTuple(), e.relation(), d.oldTupleKind() == 'K'));
        }
    }

    private static Face flowFace(PgServer s, LogicalReplicationOptions options, int done) throws Exception {
        Face face = new Face(options.messages() != null);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            drain(ReactiveReplication.changes(repl, options, FlowOptions.defaults()), face, e -> record(face, e, done),
                    e -> e.record() instanceof Commit);
        }
        return face;
    }

    private static Face viewsFace(PgServer s, LogicalReplicationOptions options, int done) throws Exception {
        Face face = new Face(options.messages() != null);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            drain(ReactiveReplication.views(repl, options, FlowOptions.defaults()), face, v -> {
                if (v.schemaChange() != null) face.schema(v.schemaChange());
                if (v.message() instanceof InsertMessage m) {
                    if (m.relation().oid() == done) face.done = true;
                    face.rebuilt.insert(m.relation().oid(), Observe.values(m.newTuple(), false));
                } else if (v.message() instanceof UpdateMessage m) {
                    face.rebuilt.update(m.relation().oid(), m.hasOldTuple() ? Observe.values(m.oldTuple(), m.oldTupleKind() == 'K') : null,
                            Observe.values(m.newTuple(), false));
                } else if (v.message() instanceof DeleteMessage m) {
                    face.rebuilt.delete(m.relation().oid(), Observe.values(m.oldTuple(), m.oldTupleKind() == 'K'));
                }
            }, v -> v.message() instanceof CommitMessage);
        }
        return face;
    }

    /**
     * Subscribes with unbounded demand and hands each item to {@code onItem} until the commit after the
     * face saw the end table's row; the first error (the publisher's, or one {@code onItem} threw) fails it.
     */
    private static <T> void drain(ReplicationPublisher<T> p, Face face, java.util.function.Consumer<T> onItem,
                                  java.util.function.Predicate<T> isCommit) throws Exception {
        CompletableFuture<Void> finished = new CompletableFuture<>();
        p.subscribe(new Flow.Subscriber<>() {
            private Flow.Subscription sub;

            @Override
            public void onSubscribe(Flow.Subscription sub) {
                this.sub = sub;
                sub.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(T item) {
                try {
                    onItem.accept(item);
                } catch (Throwable t) {
                    finished.completeExceptionally(t);
                    sub.cancel();
                    return;
                }
                if (face.done && isCommit.test(item)) {
                    finished.complete(null);
                    sub.cancel();
                }
            }

            @Override
            public void onError(Throwable t) {
                finished.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                finished.complete(null);
            }
        });
        finished.get(120, TimeUnit.SECONDS);
        p.terminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static Face blockingFace(PgServer s, LogicalReplicationOptions options, int done) throws Exception {
        Face face = new Face(options.messages() != null);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE);
             BlockingChanges<ChangeEvent> it = BlockingChanges.open(repl, options, FlowOptions.defaults(), 64)) {
            while (it.hasNext()) {
                ChangeEvent e = it.next();
                record(face, e, done);
                if (face.done && e.record() instanceof Commit) break;
            }
        }
        return face;
    }

    /** Drops the slot once its walsender has gone (it lingers a moment after the stream's connection closed). */
    static void dropWhenInactive(PgServer s, String slot) throws Exception {
        s.dropReplicationSlotIfExists(slot);
    }

    private static LogicalReplicationOptions options(String slot, boolean capture) {
        LogicalReplicationOptions.Builder b = LogicalReplicationOptions.builder(slot).publications(SchemaScript.PUBLICATION)
                .statusInterval(Duration.ofMillis(500));
        if (capture) b.messages(true);
        return b.build();
    }

    static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(mode).build()));
    }

    static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
