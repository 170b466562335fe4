package io.pgrepl.client.tx;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.Origin;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Truncate;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Type;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.codec.pgoutput.record.Begin;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RecordSerdeTest {
    private static PgOutputRecord roundTrip(PgOutputRecord r) throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        RecordSerde.write(r, new DataOutputStream(bos));
        return RecordSerde.read(new DataInputStream(new ByteArrayInputStream(bos.toByteArray())));
    }

    @Test
    void everyChangeRecordRoundTrips() throws Exception {
        Tuple odd = new Tuple(List.of(new ColumnValue("a", 25, ColumnKind.UNCHANGED_TOAST, null),
                new ColumnValue("b", 23, ColumnKind.ABSENT, null),
                new ColumnValue("c", 17, ColumnKind.BINARY, new byte[] {0, (byte) 0xff}),
                new ColumnValue("ü", 25, ColumnKind.TEXT, "é".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        List<PgOutputRecord> all = List.of(Recs.relation(5), Recs.insert(3, 1, "x"),
                new Update(0, 1, 'K', odd, Recs.tuple(2, null)), new Update(4_000_000_000L, 1, (char) 0, null, odd),
                new Delete(0, 1, 'O', odd), new Truncate(9, 3, List.of(1, 2, 3)),
                new Message(1, 1, 0x1234, "prefix", new byte[] {1, 2, 3}), new Type(0, 20000, "public", "mood"),
                new Origin(77, "origin-1"));
        for (PgOutputRecord r : all) assertEquals(r, roundTrip(r));
        assertThrows(IllegalArgumentException.class, () -> roundTrip(new Begin(1, 2, 3)));
    }
}
