package io.pgrepl.flink.internal;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.replication.PublicationSpec;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.replication.StandbySlots;
import io.pgrepl.client.snapshot.incremental.KeyRange;
import io.pgrepl.client.snapshot.incremental.KeyedTable;
import io.pgrepl.client.snapshot.incremental.TablePlanner;
import io.pgrepl.codec.Lsn;
import io.pgrepl.flink.PgreplFlinkException;
import io.pgrepl.flink.StartupMode;
import io.pgrepl.flink.TableName;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the enumerator does once, before any split exists (on a worker thread of the coordinator):
 * the publication, the slot (created first, so every change after it is in the stream), and the
 * snapshot splits: each table planned with the client's {@link TablePlanner} (key, published
 * columns, filters) and cut into key ranges of about {@code chunk.size} rows from its statistics.
 */
final class Planning {
    private static final Logger log = LoggerFactory.getLogger(Planning.class);

    /** What planning found. */
    record Plan(long streamStart, List<SnapshotSplit> splits) {}

    private Planning() {}

    static Plan plan(Settings s) {
        try (PgConnection c = Db.connect(s, ReplicationMode.NONE)) {
            if (c.serverMajor() < 10) throw new PgreplFlinkException("PostgreSQL " + c.serverMajor() + " has no pgoutput; 10 or later is needed");
            if (s.signalTable() != null) signalTableShape(c, s);
            publication(c, s);
            if (s.signalTable() != null) signalTablePublished(c, s);
            List<KeyedTable> planned = new ArrayList<>();
            for (TableName t : s.tables()) planned.add(checked(c, s, t));
            long start = slot(s, false);
            if (s.startupMode() == StartupMode.LATEST_OFFSET) {
                String sql = "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text";
                start = Lsn.max(start, Lsn.parse(Db.query(c, s, sql, "reading the WAL position").singleRow().get(0)));
            }
            List<SnapshotSplit> splits = new ArrayList<>();
            if (s.startupMode().snapshots()) {
                for (KeyedTable k : planned) splits.addAll(splits(c, s, k, 0));
            }
            log.info("pgrepl source: slot {} streams from {}; {} snapshot split(s) of {} table(s)", s.slotName(),
                    start == 0 ? "its confirmed position" : Lsn.format(start), splits.size(), planned.size());
            return new Plan(start, splits);
        }
    }

    /**
     * Plans tables to be read again while the job runs ({@link Resnapshot}): after a new slot when
     * the old one was lost (its consistent point is where the stream goes on), then the tables'
     * key ranges as at the start, their split ids marked with {@code generation}.
     */
    static Plan replan(Settings s, Resnapshot r, int generation) {
        try (PgConnection c = Db.connect(s, ReplicationMode.NONE)) {
            List<KeyedTable> planned = new ArrayList<>();
            for (TableName t : r.tables()) planned.add(checked(c, s, t));
            long start = r.slotLost() ? slot(s, true) : 0;
            List<SnapshotSplit> splits = new ArrayList<>();
            for (KeyedTable k : planned) splits.addAll(splits(c, s, k, generation));
            log.info("pgrepl source: {} snapshot split(s) of {} to read again{}", splits.size(), r.tables(),
                    r.slotLost() ? ", the stream to go on from the new slot at " + (start == 0 ? "its confirmed position" : Lsn.format(start)) : "");
            return new Plan(start, splits);
        }
    }

    /** The signal table has Debezium's shape: {@code id}, {@code type}, {@code data}. */
    private static void signalTableShape(PgConnection c, Settings s) {
        TableName t = s.signalTable();
        String lit = Identifiers.quoteLiteral(t.quoted());
        QueryResult cols = Db.query(c, s, "SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = to_regclass(" + lit
                + ") AND a.attnum > 0 AND NOT a.attisdropped", "reading the signal table " + t);
        List<String> names = cols.rows().stream().map(row -> row.get(0)).toList();
        if (!names.containsAll(List.of("id", "type", "data"))) {
            throw new PgreplFlinkException("signal table " + t + (names.isEmpty() ? " does not exist" : " has no column id, type and data")
                    + ": create it as CREATE TABLE " + t.quoted() + " (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL,"
                    + " data varchar(2048))");
        }
    }

    /** The signal table is in the publication, or its rows would never reach the stream. */
    private static void signalTablePublished(PgConnection c, Settings s) {
        TableName t = s.signalTable();
        QueryResult pub = Db.query(c, s, "SELECT 1 FROM pg_catalog.pg_publication_tables WHERE pubname = "
                + Identifiers.quoteLiteral(s.publication()) + " AND schemaname = " + Identifiers.quoteLiteral(t.schema())
                + " AND tablename = " + Identifiers.quoteLiteral(t.table()), "checking the signal table's publication");
        if (pub.rows().isEmpty()) {
            throw new PgreplFlinkException("signal table " + t + " is not in publication " + s.publication() + ", so its rows never reach"
                    + " the stream: run ALTER PUBLICATION " + Identifiers.quoteIdentifier(s.publication()) + " ADD TABLE " + t.quoted());
        }
    }

    /** The publication: must exist and list the tables (the planner checks), or is created for them. */
    private static void publication(PgConnection c, Settings s) {
        List<String> existing = Db.await(c.listPublications(), s, "listing publications", Db.TIMEOUT);
        if (existing.contains(s.publication())) return;
        if (!s.publicationAutocreate()) {
            throw new PgreplFlinkException("publication \"" + s.publication() + "\" does not exist; create it for the tables"
                    + " (CREATE PUBLICATION ... FOR TABLE ...) or let the source create it (publication.autocreate.enabled)");
        }
        List<String> names = new ArrayList<>(s.tables().stream().map(TableName::quoted).toList());
        if (s.signalTable() != null) names.add(s.signalTable().quoted());
        String[] tables = names.toArray(String[]::new);
        Db.await(c.createPublication(PublicationSpec.forTables(s.publication(), tables)), s,
                "creating publication \"" + s.publication() + "\"", Db.TIMEOUT);
        log.info("pgrepl source: created publication {} for {}", s.publication(), s.tables());
    }

    /** Plans a table and checks what the source needs of it: a published key, and REPLICA IDENTITY FULL where the changelog needs before images. */
    private static KeyedTable checked(PgConnection c, Settings s, TableName t) {
        KeyedTable k = Db.await(TablePlanner.plan(c, List.of(s.publication()), t.quoted(), null), s, "planning table " + t, Db.TIMEOUT);
        for (int i : k.keyColumnIndexes()) {
            if (i >= k.publishedColumnCount()) {
                throw new PgreplFlinkException("table " + t + ": key column \"" + k.columns().get(i).name()
                        + "\" is not in publication " + s.publication() + "'s column list; publish it");
            }
        }
        if (s.fullIdentityRequired()) {
            String ident = Db.query(c, s, "SELECT relreplident::text FROM pg_catalog.pg_class WHERE oid = "
                    + Identifiers.quoteLiteral(t.quoted()) + "::regclass", "reading the replica identity of " + t).singleRow().get(0);
            if (!"f".equals(ident)) {
                throw new PgreplFlinkException("table " + t + " has REPLICA IDENTITY " + identity(ident) + ", so PostgreSQL sends no"
                        + " whole old row with an update or delete and the changelog could not retract it (-U/-D): run ALTER TABLE "
                        + t.quoted() + " REPLICA IDENTITY FULL, or use changelog-mode 'upsert' (the key alone retracts)");
            }
        }
        return k;
    }

    private static String identity(String code) {
        return switch (code) {
            case "d" -> "DEFAULT";
            case "n" -> "NOTHING";
            case "i" -> "USING INDEX";
            default -> code;
        };
    }

    /**
     * The slot: created now if missing (its consistent point is where the stream starts), else
     * checked and used from its confirmed position; {@code replaceLost}: an invalidated one (its WAL
     * removed) is dropped and created again. {@return the position the stream starts at, 0 for the slot's own}
     */
    private static long slot(Settings s, boolean replaceLost) {
        try (PgConnection r = Db.connect(s, ReplicationMode.DATABASE)) {
            QueryResult q = Db.query(r, s, "SELECT plugin, slot_type, database, current_database(), "
                    + (r.serverMajor() >= 13 ? "wal_status" : "NULL") + " FROM pg_catalog.pg_replication_slots"
                    + " WHERE slot_name = " + Identifiers.quoteLiteral(s.slotName()), "looking up slot " + s.slotName());
            if (!q.rows().isEmpty() && replaceLost && "lost".equals(q.rows().get(0).get(4))) {
                Db.await(r.dropReplicationSlot(s.slotName(), true), s, "dropping the invalidated slot " + s.slotName(), Db.TIMEOUT);
                log.warn("pgrepl source: dropped the invalidated slot {} to create it again", s.slotName());
            } else if (!q.rows().isEmpty()) {
                Row row = q.rows().get(0);
                if (!"logical".equals(row.get(1)) || !"pgoutput".equals(row.get(0)) || !row.get(3).equals(row.get(2))) {
                    throw new PgreplFlinkException("replication slot \"" + s.slotName() + "\" exists but is " + row.get(1) + "/"
                            + row.get(0) + " of database " + row.get(2) + ", not a logical pgoutput slot of " + row.get(3));
                }
                return 0;
            }
            if (!replaceLost && s.startupMode() == StartupMode.COMMITTED_OFFSET) {
                throw new PgreplFlinkException("scan.startup.mode 'committed-offset' streams from the slot's confirmed position,"
                        + " but replication slot \"" + s.slotName() + "\" does not exist");
            }
            CreateSlotOptions o = CreateSlotOptions.logical(s.slotName(), "pgoutput").withSnapshot(SnapshotMode.NOTHING);
            if (s.slotFailover()) {
                if (r.serverMajor() < 17) {
                    throw new PgreplFlinkException("slot.failover needs PostgreSQL 17 or later (failover slots); the server is "
                            + r.serverMajor());
                }
                o = o.withFailover(true);
            }
            SlotCreated created = s.primary() == null
                    ? Db.await(r.createReplicationSlot(o), s, "creating slot " + s.slotName(), Db.TIMEOUT)
                    : Db.await(StandbySlots.create(r, o, s.primary()), s, "creating slot " + s.slotName() + " on the standby", Db.TIMEOUT);
            log.info("pgrepl source: created slot {} at {}", s.slotName(), Lsn.format(created.consistentPoint()));
            return created.consistentPoint();
        }
    }

    /** A table's key ranges of about chunk.size rows each, numbered in key order. */
    private static List<SnapshotSplit> splits(PgConnection c, Settings s, KeyedTable k, int generation) {
        TableName t = new TableName(k.schema(), k.table());
        long want = Math.max(1, (k.estimatedRows() + s.chunkSize() - 1) / s.chunkSize());
        List<KeyRange> ranges = Db.await(TablePlanner.ranges(c, k, (int) Math.min(Integer.MAX_VALUE, want), s.chunkSize()), s,
                "splitting table " + t + " into key ranges", Db.TIMEOUT);
        List<String> keys = k.keyColumns().stream().map(KeyedTable.Column::name).toList();
        List<SnapshotSplit> out = new ArrayList<>(ranges.size());
        for (int i = 0; i < ranges.size(); i++) {
            KeyRange r = ranges.get(i);
            String id = generation == 0 ? t + "#" + i : t + "@" + generation + "#" + i;
            out.add(new SnapshotSplit(id, t, i, keys, r.after(), r.upTo(), List.of(), false));
        }
        return out;
    }
}
