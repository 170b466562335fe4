package io.pgrepl.codec.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Payloads are built byte by byte from the protocol documentation's layouts. */
class BackendViewsTest {
    private static ByteBuf buf(Object... parts) {
        ByteBuf b = Unpooled.buffer();
        for (Object p : parts) {
            if (p instanceof String s) b.writeBytes(s.getBytes(StandardCharsets.UTF_8)).writeByte(0);
            else if (p instanceof Integer i) b.writeInt(i);
            else if (p instanceof Short s) b.writeShort(s);
            else if (p instanceof Byte x) b.writeByte(x);
            else if (p instanceof byte[] a) b.writeBytes(a);
            else throw new IllegalArgumentException();
        }
        return b;
    }

    @Test
    void errorFieldsKeepKnownAndUnknownCodesAndPreferNonLocalizedSeverity() {
        ByteBuf b = buf((byte) 'S', "FEHLER", (byte) 'V', "ERROR", (byte) 'C', "42704", (byte) 'M', "slot \"x\" does not exist",
                (byte) 'D', "det", (byte) 'H', "hint", (byte) 'W', "where", (byte) 'Z', "future field", (byte) 0);
        ErrorFields f = ErrorFields.decode(b, BackendMessage.ERROR_RESPONSE);
        assertEquals("ERROR", f.severity());
        assertEquals("42704", f.sqlState());
        assertEquals("slot \"x\" does not exist", f.message());
        assertEquals("det", f.detail());
        assertEquals("hint", f.hint());
        assertEquals("where", f.where());
        assertEquals("future field", f.get('Z'));
    }

    @Test
    void errorFieldsWithoutTerminatorAreMalformed() {
        assertThrows(MalformedMessageException.class,
                () -> ErrorFields.decode(buf((byte) 'C', "42704"), BackendMessage.ERROR_RESPONSE));
        ByteBuf unterminated = Unpooled.wrappedBuffer(new byte[] {'M', 'a', 'b'});
        assertThrows(MalformedMessageException.class, () -> ErrorFields.decode(unterminated, BackendMessage.NOTICE_RESPONSE));
    }

    @Test
    void rowDescriptionAndDataRowReadInPlace() {
        ByteBuf t = buf((short) 2, "slot_name", 0, (short) 0, 25, (short) -1, -1, (short) 0,
                "timeline", 0, (short) 0, 20, (short) 8, -1, (short) 0);
        RowDescription rd = new RowDescription().wrap(t);
        assertEquals(2, rd.fieldCount());
        assertEquals("slot_name", rd.name(0));
        assertEquals(25, rd.typeOid(0));
        assertEquals(20, rd.typeOid(1));
        assertEquals(8, rd.typeLength(1));
        ByteBuf d = buf((short) 3, 2, new byte[] {'h', 'i'}, -1, 0);
        DataRow row = new DataRow().wrap(d);
        assertEquals(3, row.columnCount());
        assertEquals("hi", row.text(0));
        assertTrue(row.isNull(1));
        assertNull(row.slice(1));
        assertEquals("", row.text(2));
        assertTrue(d.array() == row.slice(0).array(), "slice must share the frame memory");
    }

    @Test
    void dataRowWithHostileLengthsOrCountsIsMalformed() {
        assertThrows(MalformedMessageException.class, () -> new DataRow().wrap(buf((short) 1, 100, new byte[] {1})));
        assertThrows(MalformedMessageException.class, () -> new DataRow().wrap(buf((short) 1, -2)));
        assertThrows(MalformedMessageException.class, () -> new DataRow().wrap(buf((short) 30000, 0)));
        assertThrows(MalformedMessageException.class, () -> new DataRow().wrap(buf((short) 1, 0, (byte) 9)));
        assertThrows(MalformedMessageException.class, () -> new RowDescription().wrap(buf((short) 2, "a", 0, (short) 0)));
    }

    @Test
    void authenticationRequests() {
        assertInstanceOf(AuthenticationRequest.Ok.class, AuthenticationRequest.decode(buf(0)));
        AuthenticationRequest.Md5Password md5 = (AuthenticationRequest.Md5Password) AuthenticationRequest.decode(buf(5, new byte[] {1, 2, 3, 4}));
        assertArrayEquals(new byte[] {1, 2, 3, 4}, md5.salt());
        AuthenticationRequest.Sasl sasl = (AuthenticationRequest.Sasl) AuthenticationRequest.decode(
                buf(10, "SCRAM-SHA-256-PLUS", "SCRAM-SHA-256", (byte) 0));
        assertEquals(List.of("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"), sasl.mechanisms());
        assertArrayEquals("r=abc".getBytes(), ((AuthenticationRequest.SaslContinue) AuthenticationRequest.decode(buf(11, "r=abc".getBytes()))).data());
        assertEquals(7, AuthenticationRequest.decode(buf(7)).code());
        assertThrows(MalformedMessageException.class, () -> AuthenticationRequest.decode(buf(5, new byte[] {1, 2})));
        assertThrows(MalformedMessageException.class, () -> AuthenticationRequest.decode(buf(10, "SCRAM-SHA-256")));
        assertThrows(MalformedMessageException.class, () -> AuthenticationRequest.decode(buf(0, (byte) 1)));
    }

    @Test
    void backendKeyDataAcceptsLongKeysUpTo256() {
        BackendKeyData k = BackendKeyData.decode(buf(42, new byte[32]));
        assertEquals(42, k.processId());
        assertEquals(32, k.secretKey().length);
        assertThrows(MalformedMessageException.class, () -> BackendKeyData.decode(buf(42, new byte[257])));
        assertThrows(MalformedMessageException.class, () -> BackendKeyData.decode(buf(42)));
        assertTrue(!k.toString().contains("0, 0"));
    }

    @Test
    void smallMessages() {
        assertEquals(new ParameterStatus("server_version", "17.6"), ParameterStatus.decode(buf("server_version", "17.6")));
        assertEquals(ReadyForQuery.IN_TRANSACTION, ReadyForQuery.status(buf((byte) 'T')));
        assertThrows(MalformedMessageException.class, () -> ReadyForQuery.status(buf((byte) 'X')));
        assertEquals("SELECT 1", CommandComplete.tag(buf("SELECT 1")));
        CopyResponse w = CopyResponse.decode(BackendMessage.COPY_BOTH_RESPONSE, buf((byte) 0, (short) 0));
        assertEquals(0, w.columnFormats().length);
        assertThrows(MalformedMessageException.class, () -> CopyResponse.decode(BackendMessage.COPY_OUT_RESPONSE, buf((byte) 0, (short) 2, (short) 0)));
        NegotiateProtocolVersion v = NegotiateProtocolVersion.decode(buf(0, 1, "_pq_.x"));
        assertEquals(0, v.newestMinorVersion());
        assertEquals(List.of("_pq_.x"), v.unrecognizedOptions());
        assertThrows(MalformedMessageException.class, () -> NegotiateProtocolVersion.decode(buf(0, 1000)));
        // What real servers send: the full version code (3 << 16 | minor).
        assertEquals(0, NegotiateProtocolVersion.decode(buf(196608, 0)).newestMinorVersion());
        assertEquals(2, NegotiateProtocolVersion.decode(buf(196610, 0)).newestMinorVersion());
        assertThrows(MalformedMessageException.class, () -> NegotiateProtocolVersion.decode(buf(0x40000, 0)));
        assertEquals(new NotificationResponse(7, "ch", "pl"), NotificationResponse.decode(buf(7, "ch", "pl")));
    }
}
