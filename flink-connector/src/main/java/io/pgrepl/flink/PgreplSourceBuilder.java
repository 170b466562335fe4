package io.pgrepl.flink;

import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.client.tx.AssemblerOptions;
import io.pgrepl.flink.internal.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds a {@link PgreplSource}. Only the connection, the slot, the tables and the deserializer
 * are required:
 * <pre>{@code
 * PgreplSource<PgRow> source = PgreplSource.builder()
 *         .url("postgresql://repl_user@db.example.com/shop?sslmode=verify-full")
 *         .password(secret)
 *         .slotName("flink_orders")
 *         .tables("public.orders", "public.\"Order Items\"")
 *         .build(new PgRowDeserializer());
 * }</pre>
 */
public final class PgreplSourceBuilder {
    /** Flink CDC's default chunk size. */
    public static final int DEFAULT_CHUNK_SIZE = 8096;

    private String url;
    private String hostname;
    private int port = 5432;
    private String database;
    private String username;
    private String password;
    private String slotName;
    private String publication;
    private boolean publicationAutocreate = true;
    private final List<TableName> tables = new ArrayList<>();
    private TableName signalTable;
    private boolean lostSlotSnapshot;
    private StartupMode startupMode = StartupMode.INITIAL;
    private int chunkSize = DEFAULT_CHUNK_SIZE;
    private int fetchSize = -1;
    private Duration heartbeat = Duration.ofSeconds(30);
    private Duration connectTimeout = Duration.ofSeconds(30);
    private StreamingMode streaming = StreamingMode.ON;
    private long memoryBudgetBytes = AssemblerOptions.DEFAULT_MEMORY_BUDGET;
    private String spillDirectory;
    private int lsnCommitDelay = 3;
    private boolean slotFailover;
    private boolean failOnTruncate = true;
    private boolean fullIdentityRequired;
    private long guardFailRetainedWal;
    private long guardWarnRetainedWal;
    private Duration slotMetricsInterval = Duration.ofSeconds(30);
    private String primaryUrl;

    PgreplSourceBuilder() {}

    /**
     * Where to connect: a libpq URI ({@code postgresql://user@host1,host2/db?sslmode=verify-full&target_session_attrs=read-write})
     * or key=value string; every libpq parameter pgrepl knows applies (TLS, SCRAM channel binding,
     * several hosts, pgpass). Instead of {@link #hostname}.
     *
     * @param url the URI or conninfo
     * @return this
     */
    public PgreplSourceBuilder url(String url) {
        this.url = url;
        return this;
    }

    /** @param hostname the server (instead of {@link #url}) @return this */
    public PgreplSourceBuilder hostname(String hostname) {
        this.hostname = hostname;
        return this;
    }

    /** @param port the server's port (default 5432) @return this */
    public PgreplSourceBuilder port(int port) {
        this.port = port;
        return this;
    }

    /** @param database the database (with {@link #hostname}) @return this */
    public PgreplSourceBuilder database(String database) {
        this.database = database;
        return this;
    }

    /** @param username the role, which needs REPLICATION and SELECT on the tables (with {@link #hostname}) @return this */
    public PgreplSourceBuilder username(String username) {
        this.username = username;
        return this;
    }

    /** @param password the password (kept out of logs and messages) @return this */
    public PgreplSourceBuilder password(String password) {
        this.password = password;
        return this;
    }

    /** @param slotName the logical replication slot (created if missing) @return this */
    public PgreplSourceBuilder slotName(String slotName) {
        this.slotName = slotName;
        return this;
    }

    /** @param publication the publication (default: the slot's name followed by {@code _pub}) @return this */
    public PgreplSourceBuilder publication(String publication) {
        this.publication = publication;
        return this;
    }

    /** @param create whether a missing publication is created for the tables (default true) @return this */
    public PgreplSourceBuilder publicationAutocreate(boolean create) {
        this.publicationAutocreate = create;
        return this;
    }

    /**
     * The tables to capture, as {@code schema.table} (no schema: {@code public}); parts in double
     * quotes are taken as written: {@code "Sales"."Order Items"}. Exact names, not patterns.
     *
     * @param names the tables
     * @return this
     */
    public PgreplSourceBuilder tables(String... names) {
        for (String n : names) tables.add(TableName.parse(n));
        return this;
    }

    /** @param tables the tables to capture @return this */
    public PgreplSourceBuilder tables(List<TableName> tables) {
        this.tables.addAll(tables);
        return this;
    }

    /** @param mode where a job without state starts (default {@link StartupMode#INITIAL}) @return this */
    public PgreplSourceBuilder startupMode(StartupMode mode) {
        this.startupMode = Objects.requireNonNull(mode);
        return this;
    }

    /** @param rows about how many rows one snapshot split holds (default {@value #DEFAULT_CHUNK_SIZE}) @return this */
    public PgreplSourceBuilder chunkSize(int rows) {
        this.chunkSize = rows;
        return this;
    }

    /**
     * The most rows one read of a snapshot split holds in memory (default: the chunk size, so a split is
     * read in one transaction); a split with more is read in several transactions, each exact on its own.
     *
     * @param rows rows per read
     * @return this
     */
    public PgreplSourceBuilder fetchSize(int rows) {
        this.fetchSize = rows;
        return this;
    }

    /** @param every how often an idle stream moves the slot's position along (default 30 s; zero: never) @return this */
    public PgreplSourceBuilder heartbeat(Duration every) {
        this.heartbeat = Objects.requireNonNull(every);
        return this;
    }

    /** @param timeout the connection timeout (default 30 s) @return this */
    public PgreplSourceBuilder connectTimeout(Duration timeout) {
        this.connectTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    /**
     * pgoutput streaming of large transactions (14+): ON (default), PARALLEL (16+, else ON) or
     * OFF; a streamed transaction is assembled, spilling past the memory budget, and emitted at its commit.
     *
     * @param mode the mode
     * @return this
     */
    public PgreplSourceBuilder streaming(StreamingMode mode) {
        this.streaming = Objects.requireNonNull(mode);
        return this;
    }

    /** @param bytes heap a transaction being assembled may use before it spills (default 64 MiB) @return this */
    public PgreplSourceBuilder memoryBudgetBytes(long bytes) {
        this.memoryBudgetBytes = bytes;
        return this;
    }

    /** @param directory where large transactions spill (default java.io.tmpdir) @return this */
    public PgreplSourceBuilder spillDirectory(String directory) {
        this.spillDirectory = directory;
        return this;
    }

    /**
     * How many completed checkpoints the slot's confirmation lags behind (default 3, as Flink CDC):
     * the slot keeps the WAL those checkpoints need, so restoring from any of them works.
     *
     * @param checkpoints completed checkpoints
     * @return this
     */
    public PgreplSourceBuilder lsnCommitDelay(int checkpoints) {
        this.lsnCommitDelay = checkpoints;
        return this;
    }

    /** @param failover create the slot as a failover slot (PostgreSQL 17+, synchronized to standbys) @return this */
    public PgreplSourceBuilder slotFailover(boolean failover) {
        this.slotFailover = failover;
        return this;
    }

    /** @param fail whether a TRUNCATE of a captured table fails the job (default) or is skipped with a warning @return this */
    public PgreplSourceBuilder failOnTruncate(boolean fail) {
        this.failOnTruncate = fail;
        return this;
    }

    /**
     * Whether every captured table must have REPLICA IDENTITY FULL (checked at start): needed when
     * the elements must carry whole old rows, as a retracting changelog does. Default false.
     *
     * @param required whether to require it
     * @return this
     */
    public PgreplSourceBuilder requireFullReplicaIdentity(boolean required) {
        this.fullIdentityRequired = required;
        return this;
    }

    /**
     * The slot guard: fail the job when the slot retains more WAL than {@code failAbove} bytes, and log a
     * warning above {@code warnAbove} (0 turns a step off).
     *
     * @param warnAbove bytes, or 0
     * @param failAbove bytes, or 0
     * @return this
     */
    public PgreplSourceBuilder slotGuard(long warnAbove, long failAbove) {
        this.guardWarnRetainedWal = warnAbove;
        this.guardFailRetainedWal = failAbove;
        return this;
    }

    /** @param every how often the slot's retained WAL is read for the metrics and the guard (default 30 s; zero: never) @return this */
    public PgreplSourceBuilder slotMetricsInterval(Duration every) {
        this.slotMetricsInterval = Objects.requireNonNull(every);
        return this;
    }

    /**
     * Reads from a hot standby (16+) given by {@link #url}: the slot is created there, and the
     * primary given here is asked for the running-transactions record the creation waits for.
     *
     * @param primaryUrl the primary's libpq URI or conninfo
     * @return this
     */
    public PgreplSourceBuilder standbyOf(String primaryUrl) {
        this.primaryUrl = primaryUrl;
        return this;
    }

    /**
     * Debezium's signal table, {@code (id varchar PRIMARY KEY, type varchar NOT NULL, data varchar)}: a
     * row {@code ('...', 'execute-snapshot', '{"data-collections": ["public.orders"]}')} inserted into
     * it while the job runs has the named tables read again in parallel splits, the stream waiting
     * at the signal until they are read. The table must be in the publication (an autocreated one
     * includes it). Re-read rows arrive as reads ({@code READ}, Debezium's {@code r}) of rows the
     * changelog may already hold: elements must be upserts by the key.
     *
     * @param name {@code schema.table}, quoted parts as in SQL
     * @return this
     */
    public PgreplSourceBuilder signalTable(String name) {
        this.signalTable = name == null ? null : TableName.parse(name);
        return this;
    }

    /**
     * What a slot found dropped or invalidated (its WAL removed) leads to: false (the default) fails
     * the stream split with what to do; true creates the slot again and reads every table again
     * from it, as Debezium's {@code snapshot.mode=when_needed}. Changes between the lost position and
     * the new slot are not streamed: the re-read rows carry their result, but a row deleted in that
     * gap is not deleted downstream. Re-read rows are reads of rows the changelog may hold: elements
     * must be upserts by the key.
     *
     * @param snapshot whether to read the tables again from a new slot
     * @return this
     */
    public PgreplSourceBuilder snapshotOnLostSlot(boolean snapshot) {
        this.lostSlotSnapshot = snapshot;
        return this;
    }

    /**
     * Checks the settings and builds the source.
     *
     * @param deserializer turns changes into elements
     * @param <T>          the element type
     * @return the source
     * @throws IllegalArgumentException for a setting that is missing or wrong
     */
    public <T> PgreplSource<T> build(PgreplDeserializer<T> deserializer) {
        Objects.requireNonNull(deserializer, "deserializer");
        return new PgreplSource<>(settings(), deserializer);
    }

    /** {@return the checked settings} */
    public Settings settings() {
        if (slotName == null) throw new IllegalArgumentException("slot.name is required");
        if ((url == null) == (hostname == null)) throw new IllegalArgumentException("give either url or hostname (exactly one)");
        String conninfo = url;
        if (hostname != null) {
            if (username == null) throw new IllegalArgumentException("username is required with hostname");
            if (database == null) throw new IllegalArgumentException("database-name is required with hostname");
            conninfo = "host=" + conninfoValue(hostname) + " port=" + port + " dbname=" + conninfoValue(database)
                    + " user=" + conninfoValue(username);
        }
        return new Settings(conninfo, password, slotName, publication != null ? publication : slotName + "_pub",
                publicationAutocreate, tables, startupMode, chunkSize, fetchSize > 0 ? fetchSize : chunkSize, heartbeat,
                connectTimeout, streaming, memoryBudgetBytes, spillDirectory, lsnCommitDelay, slotFailover, failOnTruncate,
                fullIdentityRequired, guardFailRetainedWal, guardWarnRetainedWal, slotMetricsInterval, primaryUrl, signalTable,
                lostSlotSnapshot);
    }

    /** A conninfo value in single quotes, backslash and quote escaped (libpq's rules). */
    private static String conninfoValue(String v) {
        Identifiers.quoteIdentifier(v); // refuses empty values and NUL
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
