package io.pgrepl.client.replication;

/**
 * CREATE_REPLICATION_SLOT's row. {@code snapshotName} is set only for an exported snapshot;
 * {@code outputPlugin} is null for physical slots. {@code consistentPoint} is an LSN.
 */
public record SlotCreated(String slotName, long consistentPoint, String snapshotName, String outputPlugin) {}
