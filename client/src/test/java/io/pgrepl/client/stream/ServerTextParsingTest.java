package io.pgrepl.client.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgrepl.client.Column;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.ReplicationCommands;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Server-sent text (IDENTIFY_SYSTEM, slot rows, the end-of-timeline row) that does not parse is a typed protocol error. */
class ServerTextParsingTest {

    private static QueryResult row(List<String> names, String... values) {
        List<Column> cols = names.stream().map(n -> new Column(n, 25)).toList();
        byte[][] v = new byte[values.length][];
        for (int i = 0; i < values.length; i++) v[i] = values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8);
        return new QueryResult(cols, List.of(Row.of(cols, v)), "SELECT 1");
    }

    private static final List<String> IDENTIFY = List.of("systemid", "timeline", "xlogpos", "dbname");

    @Test
    void identifySystemParsesWellFormedRow() {
        var id = ReplicationCommands.identifySystem(row(IDENTIFY, "7", "3", "0/16B3748", null));
        assertEquals(3, id.timeline());
        assertEquals(0x16B3748L, id.xlogPos());
    }

    @Test
    void hostileTimelineIsProtocolError() {
        PgClientException e = assertThrows(PgClientException.class,
                () -> ReplicationCommands.identifySystem(row(IDENTIFY, "7", "SECRETx", "0/1", null)));
        assertEquals(PgClientException.Kind.PROTOCOL, e.kind());
        assertFalse(e.getMessage().contains("SECRETx"), e.getMessage());
        assertEquals(PgClientException.Kind.PROTOCOL, assertThrows(PgClientException.class,
                () -> ReplicationCommands.identifySystem(row(IDENTIFY, "7", "99999999999", "0/1", null))).kind());
    }

    @Test
    void hostileLsnIsProtocolError() {
        PgClientException e = assertThrows(PgClientException.class,
                () -> ReplicationCommands.identifySystem(row(IDENTIFY, "7", "1", "SECRET/zz", null)));
        assertEquals(PgClientException.Kind.PROTOCOL, e.kind());
        assertFalse(e.getMessage().contains("SECRET"), e.getMessage());
        assertEquals(PgClientException.Kind.PROTOCOL, assertThrows(PgClientException.class,
                () -> ReplicationCommands.slotCreated(row(List.of("slot_name", "consistent_point", "snapshot_name",
                        "output_plugin"), "s", "nope", null, null))).kind());
        assertEquals(PgClientException.Kind.PROTOCOL, assertThrows(PgClientException.class,
                () -> ReplicationCommands.readSlot(row(List.of("slot_type", "restart_lsn", "restart_tli"),
                        "logical", "0/1", "-1"))).kind());
        assertEquals(PgClientException.Kind.PROTOCOL, assertThrows(PgClientException.class,
                () -> ReplicationCommands.lsnColumn("next_tli_startpos", "1/")).kind());
    }
}
