package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fields of an ErrorResponse or NoticeResponse: (Byte1 code, String value)* then a NUL.
 * Errors outlive their frame (they travel inside exceptions), so this one is copied out of the
 * buffer rather than being a flyweight. Unknown codes are kept but never required.
 */
public final class ErrorFields {
    public static final char SEVERITY_LOCALIZED = 'S';
    public static final char SEVERITY = 'V';
    public static final char SQLSTATE = 'C';
    public static final char MESSAGE = 'M';
    public static final char DETAIL = 'D';
    public static final char HINT = 'H';
    public static final char POSITION = 'P';
    public static final char INTERNAL_POSITION = 'p';
    public static final char INTERNAL_QUERY = 'q';
    public static final char WHERE = 'W';
    public static final char SCHEMA = 's';
    public static final char TABLE = 't';
    public static final char COLUMN = 'c';
    public static final char DATATYPE = 'd';
    public static final char CONSTRAINT = 'n';
    public static final char FILE = 'F';
    public static final char LINE = 'L';
    public static final char ROUTINE = 'R';

    private final Map<Character, String> fields;

    private ErrorFields(Map<Character, String> fields) {
        this.fields = Collections.unmodifiableMap(fields);
    }

    public static ErrorFields of(Map<Character, String> fields) {
        return new ErrorFields(new LinkedHashMap<>(fields));
    }

    /** Decodes the payload of an 'E' or 'N' frame. */
    public static ErrorFields decode(ByteBuf payload, byte type) {
        String name = BackendMessage.name(type);
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Map<Character, String> map = new LinkedHashMap<>();
        int i = base;
        while (true) {
            Wire.require(i, 1, end, name, base, "field code");
            byte code = payload.getByte(i++);
            if (code == 0) break;
            int nul = Wire.cstringEnd(payload, i, end, name, base);
            map.put((char) (code & 0xff), Wire.utf8(payload, i, nul));
            i = nul + 1;
        }
        if (i != end) {
            throw new MalformedMessageException(name, i - base, (end - i) + " bytes after the field terminator");
        }
        return new ErrorFields(map);
    }

    public String get(char code) {
        return fields.get(code);
    }

    public Map<Character, String> asMap() {
        return fields;
    }

    /** Non-localized severity (V, 9.6+) when present, else the localized one (S). */
    public String severity() {
        String v = fields.get(SEVERITY);
        return v != null ? v : fields.get(SEVERITY_LOCALIZED);
    }

    public String sqlState() {
        return fields.get(SQLSTATE);
    }

    public String message() {
        return fields.get(MESSAGE);
    }

    public String detail() {
        return fields.get(DETAIL);
    }

    public String hint() {
        return fields.get(HINT);
    }

    public String where() {
        return fields.get(WHERE);
    }

    @Override
    public String toString() {
        return severity() + " " + sqlState() + ": " + message();
    }
}
