package io.pgrepl.kafka.connect;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The seam for snapshot.mode initial / initial_only / when_needed: copies the captured tables as
 * of the snapshot a new slot exported, so streaming from the slot's consistent point continues
 * exactly where the copy ends. The task converts what it reads into {@code op=r} records.
 * Implementations are found with {@link ServiceLoader}; none ships yet, so only
 * snapshot.mode=never is accepted until one is registered (see the README).
 */
public interface InitialSnapshot {
    /**
     * Starts copying. Called on the task thread (it may block), once, right after the slot was
     * created with an exported snapshot.
     *
     * @param config       the connection settings (a normal, non-replication session is wanted)
     * @param snapshotName what CREATE_REPLICATION_SLOT exported, for SET TRANSACTION SNAPSHOT
     * @param tables       schema-qualified, quoted table names to copy
     * @param maxThreads   snapshot.max.threads
     */
    Reader open(ConnectionConfig config, String snapshotName, List<String> tables, int maxThreads);

    /** The copied rows as a Relation record per table, then an Insert record per row. */
    interface Reader extends AutoCloseable {
        /** The next record, waiting at most {@code timeout}; empty when none arrived in time. */
        Optional<PgOutputRecord> poll(Duration timeout) throws InterruptedException;

        /** True once every table was copied and every record taken. */
        boolean finished();

        @Override
        void close();
    }

    /** The registered implementation, if any. */
    static Optional<InitialSnapshot> find() {
        return ServiceLoader.load(InitialSnapshot.class, InitialSnapshot.class.getClassLoader()).findFirst();
    }
}
