package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgClientException;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogicalReplicationOptionsTest {
    private static LogicalReplicationOptions.Builder base() {
        return LogicalReplicationOptions.builder("s1").publications("pub");
    }

    private static PgClientException unsupported(LogicalReplicationOptions o, int versionNum) {
        PgClientException e = assertThrows(PgClientException.class, () -> o.startCommand(versionNum));
        assertEquals(PgClientException.Kind.UNSUPPORTED_BY_SERVER, e.kind());
        return e;
    }

    @Test
    void autoProtoPerMajor() {
        LogicalReplicationOptions o = base().build();
        assertEquals("START_REPLICATION SLOT s1 LOGICAL 0/0 (proto_version '1', publication_names 'pub')", o.startCommand(100023));
        assertTrue(o.startCommand(130022).contains("proto_version '1'"));
        assertTrue(o.startCommand(140019).contains("proto_version '2'"));
        assertTrue(o.startCommand(150014).contains("proto_version '3'"));
        assertTrue(o.startCommand(160010).contains("proto_version '4'"));
        assertTrue(o.startCommand(180001).contains("proto_version '4'"));
    }

    @Test
    void startLsnFormatted() {
        String cmd = base().startLsn(0x1_0000_00ABL).build().startCommand(170006);
        assertTrue(cmd.startsWith("START_REPLICATION SLOT s1 LOGICAL 1/AB ("), cmd);
    }

    @Test
    void explicitProtoAboveServerMaxRejected() {
        PgClientException e = unsupported(base().protoVersion(3).build(), 140019);
        assertTrue(e.getMessage().contains("proto_version 3 needs PostgreSQL 15"), e.getMessage());
        assertThrows(PgClientException.class, () -> base().protoVersion(5));
    }

    @Test
    void featuresCheckedAgainstVersion() {
        unsupported(base().binary(true).build(), 130000);
        unsupported(base().messages(true).build(), 130000);
        unsupported(base().streaming(StreamingMode.ON).build(), 130000);
        unsupported(base().twoPhase(true).build(), 140000);
        unsupported(base().origin(OriginFilter.NONE).build(), 150000);
        PgClientException e = unsupported(base().streaming(StreamingMode.PARALLEL).build(), 150000);
        assertTrue(e.getMessage().contains("streaming=parallel needs PostgreSQL 16"), e.getMessage());
    }

    @Test
    void featuresCheckedAgainstChosenProto() {
        unsupported(base().protoVersion(1).streaming(StreamingMode.ON).build(), 170000);
        unsupported(base().protoVersion(3).streaming(StreamingMode.PARALLEL).build(), 170000);
        unsupported(base().protoVersion(2).twoPhase(true).build(), 170000);
        // two_phase off needs no particular proto
        assertTrue(base().protoVersion(1).twoPhase(false).build().startCommand(170000).contains("two_phase 'false'"));
    }

    @Test
    void allOptionsQuotedAsStringConstants() {
        String cmd = base().binary(true).messages(true).streaming(StreamingMode.PARALLEL).twoPhase(true)
                .origin(OriginFilter.NONE).build().startCommand(170006);
        assertEquals("START_REPLICATION SLOT s1 LOGICAL 0/0 (proto_version '4', publication_names 'pub', binary 'true',"
                + " messages 'true', streaming 'parallel', two_phase 'true', origin 'none')", cmd);
    }

    @Test
    void streamingAutoResolvesPerServer() {
        LogicalReplicationOptions o = base().streaming(StreamingMode.AUTO).build();
        assertTrue(!o.startCommand(130000).contains("streaming"));
        assertTrue(o.startCommand(140000).contains("streaming 'on'"));
        assertTrue(o.startCommand(150000).contains("streaming 'on'"));
        assertTrue(o.startCommand(160000).contains("streaming 'parallel'"));
        assertTrue(base().protoVersion(2).streaming(StreamingMode.AUTO).build().startCommand(170000).contains("streaming 'on'"));
    }

    @Test
    void publicationNamesQuoting() {
        assertEquals("a,b_1", StartReplicationCommand.publicationNamesValue(List.of("a", "b_1")));
        assertEquals("\"Pub\",\"a,b\",\"we\"\"ird\",\"1x\"",
                StartReplicationCommand.publicationNamesValue(List.of("Pub", "a,b", "we\"ird", "1x")));
        assertEquals("\"it's\"", StartReplicationCommand.publicationNamesValue(List.of("it's")));
        String cmd = base().publications("it's", "My Pub").build().startCommand(170000);
        assertTrue(cmd.contains("publication_names '\"it''s\",\"My Pub\"'"), cmd);
        // backslashes are literal in the replication scanner: no E'' form, no doubling
        assertTrue(base().publications("a\\b").build().startCommand(170000).contains("publication_names '\"a\\b\"'"));
        assertThrows(PgClientException.class, () -> LogicalReplicationOptions.builder("s").build());
        assertThrows(PgClientException.class, () -> StartReplicationCommand.publicationNamesValue(List.of("")));
    }

    @Test
    void readCoalescingBounded() {
        assertEquals(java.time.Duration.ofMillis(1), base().build().readCoalescing(), "default");
        assertEquals(java.time.Duration.ZERO, base().readCoalescing(java.time.Duration.ZERO).build().readCoalescing());
        assertEquals(java.time.Duration.ofMillis(7), base().readCoalescing(java.time.Duration.ofMillis(7)).build().toBuilder().build().readCoalescing(),
                "kept by toBuilder");
        assertThrows(PgClientException.class, () -> base().readCoalescing(java.time.Duration.ofMillis(-1)).build());
        assertThrows(PgClientException.class, () -> base().readCoalescing(java.time.Duration.ofMillis(101)).build());
        assertThrows(PgClientException.class, () -> base().readCoalescing(java.time.Duration.ofMillis(50))
                .receiveTimeout(java.time.Duration.ofMillis(50)).build());
        assertEquals(java.time.Duration.ofMillis(50), base().readCoalescing(java.time.Duration.ofMillis(50))
                .receiveTimeout(java.time.Duration.ofMillis(51)).build().readCoalescing());
    }

    @Test
    void slotNameValidated() {
        assertThrows(IllegalArgumentException.class, () -> LogicalReplicationOptions.builder("Bad Slot").publications("p").build());
    }

    @Test
    void physicalCommand() {
        assertEquals("START_REPLICATION SLOT ps PHYSICAL 0/3000000 TIMELINE 2",
                new PhysicalReplicationOptions("ps", 0x3000000L, 2, null, null).startCommand());
        assertEquals("START_REPLICATION PHYSICAL 0/0", PhysicalReplicationOptions.of(null, 0).startCommand());
    }
}
