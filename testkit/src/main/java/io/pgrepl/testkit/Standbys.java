package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Physical standbys of embedded servers. A standby is a cold copy of its primary's data
 * directory (the primary is stopped for the copy, so no base backup protocol is needed) that
 * streams from the primary through a physical slot. From PostgreSQL 17 the standby also
 * synchronises failover logical slots ({@code sync_replication_slots}), and the primary holds
 * logical walsenders back until the standby has the WAL ({@code synchronized_standby_slots}).
 */
final class Standbys {
    private Standbys() {
    }

    /** standby.signal on 12+; recovery.conf with standby_mode on 10/11. */
    static void writeStandbySignal(EmbeddedPgServer server) {
        if (server.majorVersion() >= 12) {
            server.writeServerFile(server.dataDir().resolve("standby.signal"), "");
        } else {
            server.writeServerFile(server.dataDir().resolve("recovery.conf"), "standby_mode = 'on'\n");
        }
    }

    static PgServer start(EmbeddedPgServer primary, String physicalSlot) {
        if (primary.majorVersion() < 12) {
            throw new UnsupportedOperationException("streaming standbys need PostgreSQL 12 or later (standby.signal)");
        }
        if (!physicalSlot.matches("[a-z0-9_]{1,63}")) {
            throw new IllegalArgumentException("slot names are lower-case letters, digits and underscores");
        }
        try {
            primary.sql("postgres", "SELECT pg_catalog.pg_create_physical_replication_slot('" + physicalSlot + "', true)");
        } catch (Exception e) {
            throw new IllegalStateException("could not create the standby's physical slot on " + primary, e);
        }
        PgUser repl = primary.replicationUser();
        Map<String, String> standbySettings = new LinkedHashMap<>();
        // dbname: the slot-sync worker connects to a database to read the primary's slots.
        standbySettings.put("primary_conninfo", "host=" + primary.host() + " port=" + primary.port() + " user=" + repl.name()
                + " password='" + repl.password().replace("\\", "\\\\").replace("'", "\\'") + "' dbname=postgres"
                + " application_name=standby sslmode=" + (primary.tls().isPresent() ? "require" : "disable"));
        standbySettings.put("primary_slot_name", physicalSlot);
        standbySettings.put("hot_standby_feedback", "on");
        if (primary.majorVersion() >= 17) {
            standbySettings.put("sync_replication_slots", "on");
        }
        primary.stop(StopMode.FAST);
        EmbeddedPgServer standby;
        try {
            Path dir = EmbeddedPgServer.newServerDir(primary.installation(), "pg" + primary.majorVersion() + "-standby");
            standby = EmbeddedPgServer.copyOf(primary, dir, standbySettings);
        } finally {
            primary.start();
        }
        try {
            // The copy's slots belong to the primary; synced ones will come from the slot-sync worker.
            clearSlots(standby.dataDir().resolve("pg_replslot"));
            writeStandbySignal(standby);
            standby.startOnFreePort();
        } catch (RuntimeException | Error e) {
            standby.close();
            throw e;
        }
        if (primary.majorVersion() >= 17) {
            primary.reload(Map.of("synchronized_standby_slots", physicalSlot));
        }
        return standby;
    }

    private static void clearSlots(Path replslot) {
        try (Stream<Path> slots = Files.list(replslot)) {
            for (Path slot : slots.toList()) {
                KitDirs.deleteTree(slot);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + replslot, e);
        }
    }
}
