package io.pgrepl.client.replication;

/** READ_REPLICATION_SLOT's row (PG15+, physical slots): type, restart LSN (0 if unset) and its timeline. */
public record ReplicationSlotStatus(String slotType, long restartLsn, long restartTimeline) {}
