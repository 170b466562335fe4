package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.OriginFilter;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.*;
import io.pgrepl.codec.replication.XLogData;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code pgrepl stream URL --slot S --publication P [options]}: one JSON object per pgoutput
 * message on stdout (the {@code pgrepl decode} schema, rendered by {@link ChangeJson}). A
 * transaction is acknowledged only after its lines were flushed to stdout.
 */
final class StreamCommand implements Main.Command {
    static final String USAGE = "usage: pgrepl stream URL --slot S --publication P[,P2] [--create-slot [--temporary]]"
            + " [--proto-version N] [--streaming off|on|parallel] [--binary] [--messages] [--two-phase]"
            + " [--origin any|none] [--start-lsn X/X] [--end-lsn X/X] [--idle-exit SECONDS] [--reconnect]";

    @Override
    public String summary() {
        return "stream a logical replication slot (pgoutput) as JSON lines";
    }

    /** Parsed command line. */
    static final class Settings {
        String url;
        String slot;
        final List<String> publications = new ArrayList<>();
        boolean createSlot;
        boolean temporary;
        int protoVersion = LogicalReplicationOptions.PROTO_AUTO;
        StreamingMode streaming;
        Boolean binary;
        Boolean messages;
        Boolean twoPhase;
        OriginFilter origin;
        long startLsn;
        long endLsn;
        Duration idleExit;
        boolean reconnect;

        LogicalReplicationOptions options() {
            LogicalReplicationOptions.Builder b = LogicalReplicationOptions.builder(slot).publications(publications)
                    .protoVersion(protoVersion).startLsn(startLsn).binary(binary).messages(messages)
                    .twoPhase(twoPhase).origin(origin);
            if (streaming != null) b.streaming(streaming);
            return b.build();
        }
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            out.println(USAGE);
            return 0;
        }
        Settings s = parse(args);
        ConnectionConfig config = ConnectionConfig.parse(s.url).toBuilder().replication(ReplicationMode.DATABASE).build();
        PgConnection conn = await(PgConnection.connect(config));
        try {
            if (s.createSlot) {
                CreateSlotOptions o = CreateSlotOptions.logical(s.slot, "pgoutput").withTemporary(s.temporary)
                        .withSnapshot(SnapshotMode.NOTHING);
                if (Boolean.TRUE.equals(s.twoPhase)) o = o.withTwoPhase(true);
                await(conn.createReplicationSlot(o));
            }
            if (s.reconnect) {
                // The reconnecting stream opens its own connections.
                conn.close();
                conn = null;
            }
            return new Runner(s, out, err).run(conn, config);
        } finally {
            if (conn != null) conn.close();
        }
    }

    static Settings parse(String[] args) throws UsageException {
        Settings s = new Settings();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--slot" -> s.slot = value(args, ++i, a);
                case "--publication" -> {
                    for (String p : value(args, ++i, a).split(",")) if (!p.isBlank()) s.publications.add(p.trim());
                }
                case "--create-slot" -> s.createSlot = true;
                case "--temporary" -> s.temporary = true;
                case "--proto-version" -> s.protoVersion = intValue(args, ++i, a, 1, 4);
                case "--streaming" -> s.streaming = switch (value(args, ++i, a)) {
                    case "off" -> StreamingMode.OFF;
                    case "on" -> StreamingMode.ON;
                    case "parallel" -> StreamingMode.PARALLEL;
                    default -> throw new UsageException("--streaming takes off, on or parallel");
                };
                case "--binary" -> s.binary = true;
                case "--messages" -> s.messages = true;
                case "--two-phase" -> s.twoPhase = true;
                case "--origin" -> s.origin = switch (value(args, ++i, a)) {
                    case "any" -> OriginFilter.ANY;
                    case "none" -> OriginFilter.NONE;
                    default -> throw new UsageException("--origin takes any or none");
                };
                case "--start-lsn" -> s.startLsn = lsn(value(args, ++i, a), a);
                case "--end-lsn" -> s.endLsn = lsn(value(args, ++i, a), a);
                case "--idle-exit" -> s.idleExit = Duration.ofSeconds(intValue(args, ++i, a, 1, Integer.MAX_VALUE));
                case "--reconnect" -> s.reconnect = true;
                default -> {
                    if (a.startsWith("-")) throw new UsageException("unknown option " + CliErrors.shown(a) + "\n" + USAGE);
                    if (s.url != null) throw new UsageException("more than one URL\n" + USAGE);
                    s.url = a;
                }
            }
        }
        if (s.url == null) throw new UsageException("missing URL\n" + USAGE);
        if (s.slot == null) throw new UsageException("missing --slot\n" + USAGE);
        if (s.publications.isEmpty()) throw new UsageException("missing --publication\n" + USAGE);
        if (s.temporary && !s.createSlot) throw new UsageException("--temporary needs --create-slot");
        if (s.temporary && s.reconnect) {
            throw new UsageException("--temporary cannot be combined with --reconnect: the slot dies with the connection");
        }
        return s;
    }

    private static String value(String[] args, int i, String option) throws UsageException {
        if (i >= args.length) throw new UsageException(option + " needs a value");
        return args[i];
    }

    private static int intValue(String[] args, int i, String option, int min, int max) throws UsageException {
        String v = value(args, i, option);
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a number from " + min + " to " + max + ", got '" + v + "'");
        }
    }

    private static long lsn(String v, String option) throws UsageException {
        try {
            return Lsn.parse(v);
        } catch (RuntimeException e) {
            throw new UsageException(option + " needs an LSN like 0/16B3748, got '" + v + "'");
        }
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    /** Rendered output handed from the event loop to the printing thread. */
    private record Chunk(String text, long ackLsn) {}

    /**
     * Renders on the event loop (zero-copy views into ChangeJson), prints and acknowledges on the
     * calling thread. More than {@link #HIGH} chunks waiting pauses socket reading (keepalives go
     * on); the printing thread resumes it below {@link #LOW}. Both decisions run on the event loop,
     * so they apply in order.
     */
    static final class Runner implements LogicalStreamHandler {
        private static final int HIGH = 256;
        private static final int LOW = 64;
        private static final int CHUNK_CHARS = 64 * 1024;
        private static final Object END = new Object();

        private final Settings settings;
        private final PrintStream out;
        private final PrintStream err;
        private final StringBuilder pending = new StringBuilder(CHUNK_CHARS + 1024);
        private final ChangeJson json = new ChangeJson(pending);
        private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private volatile LogicalReplicationStream current;
        private volatile boolean paused;
        private long printed;

        Runner(Settings settings, PrintStream out, PrintStream err) {
            this.settings = settings;
            this.out = out;
            this.err = err;
        }

        /** Streams until --end-lsn, --idle-exit, an error or the server's end; returns the exit code. */
        int run(PgConnection conn, ConnectionConfig config) throws Exception {
            LogicalReplicationOptions options = settings.options();
            ReconnectingLogicalStream reconnecting = null;
            LogicalReplicationStream single = null;
            CompletionStage<Void> completion;
            if (conn == null) {
                reconnecting = ReconnectingLogicalStream.start(config, options, this, ReconnectPolicy.defaults());
                completion = reconnecting.completion();
            } else {
                single = conn.startLogical(options, this);
                completion = single.completion();
            }
            completion.whenComplete((v, e) -> queue.add(END));
            boolean progress = System.console() != null && err == System.err;
            long lastData = System.nanoTime();
            long lastProgress = System.nanoTime();
            long lastPrinted = 0;
            boolean reachedEnd = false;
            while (true) {
                Object o = queue.poll(200, TimeUnit.MILLISECONDS);
                if (o == END) break;
                if (o instanceof Chunk c) {
                    lastData = System.nanoTime();
                    out.print(c.text);
                    out.flush();
                    if (out.checkError()) throw new java.io.IOException("cannot write to stdout");
                    printed += c.text.chars().filter(ch -> ch == '\n').count();
                    maybeResume();
                    if (c.ackLsn != 0) {
                        // Flushed: now, and only now, the server may forget these changes.
                        if (reconnecting != null) reconnecting.acknowledge(c.ackLsn);
                        else single.acknowledge(c.ackLsn);
                        if (settings.endLsn != 0 && Long.compareUnsigned(c.ackLsn, settings.endLsn) >= 0) {
                            reachedEnd = true;
                            break;
                        }
                    }
                } else if (settings.idleExit != null && queue.isEmpty()
                        && System.nanoTime() - lastData >= settings.idleExit.toNanos()) {
                    break;
                }
                if (progress && System.nanoTime() - lastProgress >= 1_000_000_000L) {
                    LogicalReplicationStream s = current;
                    StreamMetrics m = s == null ? null : s.metrics();
                    double secs = (System.nanoTime() - lastProgress) / 1e9;
                    err.printf("\rpgrepl: %d messages, %.0f msg/s, lag %s bytes   ", printed,
                            (printed - lastPrinted) / secs, m == null ? "?" : Long.toString(m.lagBytes()));
                    lastProgress = System.nanoTime();
                    lastPrinted = printed;
                }
            }
            if (progress) err.println();
            CompletionStage<Void> stopped = reconnecting != null ? reconnecting.stop() : single.stop();
            try {
                await(stopped);
            } catch (Exception e) {
                if (!reachedEnd) throw e;
            }
            return 0;
        }

        private void maybeResume() {
            if (!paused || queue.size() > LOW) return;
            LogicalReplicationStream s = current;
            if (s != null) s.eventLoop().execute(this::applyBackpressure);
        }

        /** Event loop only. */
        private void applyBackpressure() {
            LogicalReplicationStream s = current;
            if (s == null) return;
            int n = queue.size();
            if (!paused && n > HIGH) {
                paused = true;
                s.pauseReading();
            } else if (paused && n <= LOW) {
                paused = false;
                s.resumeReading();
            }
        }

        /** After each message (event loop): hand over the text at transaction ends and when large. */
        private void after(long ackLsn) {
            if (ackLsn != 0 || pending.length() >= CHUNK_CHARS) {
                queue.add(new Chunk(pending.toString(), ackLsn));
                pending.setLength(0);
                applyBackpressure();
            }
        }

        @Override
        public void onStarted(LogicalReplicationStream stream) {
            current = stream;
            paused = false;
            pending.setLength(0); // a reconnect resends everything not acknowledged
        }

        @Override
        public void onXLogData(XLogData header) {
            json.at(header.walStart());
        }

        @Override public void onBegin(BeginMessage m) { json.onBegin(m); after(0); }
        @Override public void onCommit(CommitMessage m) { json.onCommit(m); after(m.endLsn()); }
        @Override public void onOrigin(OriginMessage m) { json.onOrigin(m); after(0); }
        @Override public void onRelation(RelationMessage m) { json.onRelation(m); after(0); }
        @Override public void onType(TypeMessage m) { json.onType(m); after(0); }
        @Override public void onInsert(InsertMessage m) { json.onInsert(m); after(0); }
        @Override public void onUpdate(UpdateMessage m) { json.onUpdate(m); after(0); }
        @Override public void onDelete(DeleteMessage m) { json.onDelete(m); after(0); }
        @Override public void onTruncate(TruncateMessage m) { json.onTruncate(m); after(0); }

        @Override
        public void onMessage(LogicalMessage m) {
            json.onMessage(m);
            after(m.transactional() ? 0 : m.messageLsn());
        }

        @Override public void onStreamStart(StreamStartMessage m) { json.onStreamStart(m); after(0); }
        @Override public void onStreamStop(StreamStopMessage m) { json.onStreamStop(m); after(0); }
        @Override public void onStreamCommit(StreamCommitMessage m) { json.onStreamCommit(m); after(m.endLsn()); }
        @Override public void onStreamAbort(StreamAbortMessage m) { json.onStreamAbort(m); after(0); }
        @Override public void onBeginPrepare(BeginPrepareMessage m) { json.onBeginPrepare(m); after(0); }
        @Override public void onPrepare(PrepareMessage m) { json.onPrepare(m); after(m.endLsn()); }
        @Override public void onStreamPrepare(PrepareMessage m) { json.onStreamPrepare(m); after(m.endLsn()); }
        @Override public void onCommitPrepared(CommitPreparedMessage m) { json.onCommitPrepared(m); after(m.endLsn()); }

        @Override
        public void onRollbackPrepared(RollbackPreparedMessage m) {
            json.onRollbackPrepared(m);
            after(m.rollbackEndLsn());
        }
    }
}
