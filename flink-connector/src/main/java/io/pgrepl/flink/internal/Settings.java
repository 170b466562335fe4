package io.pgrepl.flink.internal;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.flink.StartupMode;
import io.pgrepl.flink.TableName;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything a source runs with, checked once by the builder and shipped to the enumerator and the
 * readers (a {@link ConnectionConfig} is not serializable: it is built from the URL where needed).
 * The password never appears in {@link #toString()}.
 *
 * @param url                   a libpq URI or key=value string (hosts, database, user, sslmode, target_session_attrs...)
 * @param password              the password, or null (then the URL's, a pgpass file or none)
 * @param slotName              the logical replication slot
 * @param publication           the publication the stream reads
 * @param publicationAutocreate create the publication for {@code tables} when it is missing
 * @param tables                the captured tables
 * @param startupMode           where a job without state begins
 * @param chunkSize             rows per snapshot split (a key range planned from the statistics)
 * @param fetchSize             the most rows one read of a split holds (each read is its own transaction)
 * @param heartbeat             how often an idle stream moves its position to the server's WAL end; zero: never
 * @param connectTimeout        the connection timeout
 * @param streaming             pgoutput streaming of large transactions (14+)
 * @param memoryBudgetBytes     heap a transaction being assembled may use before it spills
 * @param spillDirectory        where large transactions spill, or null for java.io.tmpdir
 * @param lsnCommitDelay        completed checkpoints the slot's confirmation lags behind
 * @param slotFailover          create the slot as a failover slot (17+)
 * @param failOnTruncate        a TRUNCATE of a captured table fails the job (else it is skipped, logged)
 * @param fullIdentityRequired  every captured table must have REPLICA IDENTITY FULL (the changelog carries whole before images)
 * @param guardFailRetainedWal  the slot guard fails the job when the slot retains more WAL than this; 0: off
 * @param guardWarnRetainedWal  the slot guard logs a warning above this; 0: off
 * @param slotMetricsInterval   how often the slot's retained WAL is read for the metrics; zero: never
 * @param primaryUrl            when {@code url} names a hot standby (16+): the primary, where the slot's creation
 *                              asks for a running-transactions record ({@code pg_log_standby_snapshot()}); or null
 * @param signalTable           Debezium's signal table ({@code id}, {@code type}, {@code data}): an
 *                              {@code execute-snapshot} row inserted into it has the tables it names read again while the job
 *                              runs; or null
 * @param lostSlotSnapshot      a slot found dropped or invalidated is created again and every table read again (else the
 *                              stream split fails)
 */
public record Settings(String url, String password, String slotName, String publication, boolean publicationAutocreate,
                       List<TableName> tables, StartupMode startupMode, int chunkSize, int fetchSize, Duration heartbeat,
                       Duration connectTimeout, StreamingMode streaming, long memoryBudgetBytes, String spillDirectory,
                       int lsnCommitDelay, boolean slotFailover, boolean failOnTruncate, boolean fullIdentityRequired,
                       long guardFailRetainedWal, long guardWarnRetainedWal, Duration slotMetricsInterval, String primaryUrl,
                       TableName signalTable, boolean lostSlotSnapshot) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Checks what can be checked without a server. */
    public Settings {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(slotName, "slot name");
        Objects.requireNonNull(publication, "publication");
        tables = List.copyOf(tables);
        if (tables.isEmpty()) throw new IllegalArgumentException("no table to capture");
        if (chunkSize < 1) throw new IllegalArgumentException("scan.incremental.snapshot.chunk.size must be at least 1, got " + chunkSize);
        if (fetchSize < 1) throw new IllegalArgumentException("scan.snapshot.fetch.size must be at least 1, got " + fetchSize);
        if (lsnCommitDelay < 0) throw new IllegalArgumentException("scan.lsn-commit.checkpoints-num-delay must not be negative");
        io.pgrepl.client.replication.Identifiers.requireSlotName(slotName);
        ConnectionConfig.parse(url); // a URL that does not parse fails here, not on a task manager
        if (primaryUrl != null) ConnectionConfig.parse(primaryUrl);
        if (signalTable != null && tables.contains(signalTable)) {
            throw new IllegalArgumentException("the signal table " + signalTable + " is also a captured table; its rows are signals, not changes");
        }
        if (signalTable != null && startupMode == StartupMode.SNAPSHOT) {
            throw new IllegalArgumentException("a signal table needs a stream that runs on; scan.startup.mode 'snapshot' ends after the snapshot");
        }
    }

    /**
     * The connection configuration: the URL, the password, the timeout, and the session settings
     * the value parsers rely on (UTC, so timestamptz texts from the stream and from the snapshot
     * reads are alike).
     *
     * @param replication none for reads and catalog queries, database for the stream and slot commands
     * @return the configuration
     */
    public ConnectionConfig connection(ReplicationMode replication) {
        ConnectionConfig.Builder b = ConnectionConfig.parse(url).toBuilder()
                .replication(replication)
                .connectTimeout(connectTimeout)
                .startupParameter("TimeZone", "UTC");
        if (password != null) b.password(password);
        if (replication == ReplicationMode.NONE) b.applicationName("pgrepl-flink");
        return b.build();
    }

    /** {@return the primary's connection (ordinary) when the source is a standby, else null} */
    public ConnectionConfig primary() {
        if (primaryUrl == null) return null;
        ConnectionConfig.Builder b = ConnectionConfig.parse(primaryUrl).toBuilder().connectTimeout(connectTimeout);
        if (password != null) b.password(password);
        return b.build();
    }

    @Override
    public String toString() {
        return "Settings[url=" + ConnectionConfig.parse(url) + ", slot=" + slotName + ", publication=" + publication
                + ", tables=" + tables + ", startupMode=" + startupMode + ", chunkSize=" + chunkSize + ", fetchSize=" + fetchSize
                + ", streaming=" + streaming + ", signalTable=" + signalTable + ", lostSlotSnapshot=" + lostSlotSnapshot
                + ", password=" + (password == null ? "none" : "given") + "]";
    }
}
