/**
 * The CopyData payloads of START_REPLICATION: XLogData and PrimaryKeepalive views (server to
 * client), StandbyStatusUpdate and HotStandbyFeedback encoders (client to server).
 */
package io.pgrepl.codec.replication;
