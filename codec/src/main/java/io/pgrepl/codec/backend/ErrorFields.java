package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fields of an ErrorResponse or NoticeResponse: (Byte1 code, String value)* then a NUL.
 * Errors outlive their frame (they travel inside exceptions), so this one is copied out of the
 * buffer rather than being a flyweight. Unknown codes are kept but never required.
 */
public final class ErrorFields {
    /** 'S': severity, possibly localized (ERROR, FATAL, PANIC, WARNING, NOTICE, DEBUG, INFO, LOG). */
    public static final char SEVERITY_LOCALIZED = 'S';
    /** 'V': severity, never localized (9.6+). */
    public static final char SEVERITY = 'V';
    /** 'C': the SQLSTATE code, e.g. {@code 42P01}. */
    public static final char SQLSTATE = 'C';
    /** 'M': the primary human-readable message. */
    public static final char MESSAGE = 'M';
    /** 'D': an optional secondary message with more detail. */
    public static final char DETAIL = 'D';
    /** 'H': an optional suggestion what to do. */
    public static final char HINT = 'H';
    /** 'P': cursor position in the query string, 1-based, in characters. */
    public static final char POSITION = 'P';
    /** 'p': cursor position in an internally generated command, 1-based, in characters. */
    public static final char INTERNAL_POSITION = 'p';
    /** 'q': the text of the internally generated command that failed. */
    public static final char INTERNAL_QUERY = 'q';
    /** 'W': the context, e.g. a PL/pgSQL call stack, one entry per line. */
    public static final char WHERE = 'W';
    /** 's': the schema of the object the error concerns. */
    public static final char SCHEMA = 's';
    /** 't': the table the error concerns. */
    public static final char TABLE = 't';
    /** 'c': the column the error concerns. */
    public static final char COLUMN = 'c';
    /** 'd': the data type the error concerns. */
    public static final char DATATYPE = 'd';
    /** 'n': the constraint the error concerns. */
    public static final char CONSTRAINT = 'n';
    /** 'F': the server source file that reported the error. */
    public static final char FILE = 'F';
    /** 'L': the line number in that source file. */
    public static final char LINE = 'L';
    /** 'R': the server source routine that reported the error. */
    public static final char ROUTINE = 'R';

    private final Map<Character, String> fields;

    private ErrorFields(Map<Character, String> fields) {
        this.fields = Collections.unmodifiableMap(fields);
    }

    /**
     * Builds fields from a map, e.g. for an error made up by the client or a test.
     *
     * @param fields values keyed by field code; copied, insertion order kept
     * @return the fields
     */
    public static ErrorFields of(Map<Character, String> fields) {
        return new ErrorFields(new LinkedHashMap<>(fields));
    }

    /**
     * Decodes the payload of an 'E' or 'N' frame.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @param type    the frame's type byte, {@code 'E'} or {@code 'N'}, for errors
     * @return the fields, copied out of the buffer
     * @throws MalformedMessageException if a field is unterminated or bytes follow the terminator
     */
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

    /**
     * One field by its code.
     *
     * @param code the field type byte, e.g. {@link #SQLSTATE}
     * @return the value, or null if the server did not send it
     */
    public String get(char code) {
        return fields.get(code);
    }

    /**
     * Every field the server sent, including codes this class has no constant for.
     *
     * @return an unmodifiable map keyed by field code, in the order sent
     */
    public Map<Character, String> asMap() {
        return fields;
    }

    /**
     * Non-localized severity (V, 9.6+) when present, else the localized one (S).
     *
     * @return e.g. {@code ERROR} or {@code FATAL}; null only if the server sent neither
     */
    public String severity() {
        String v = fields.get(SEVERITY);
        return v != null ? v : fields.get(SEVERITY_LOCALIZED);
    }

    /**
     * The SQLSTATE code (C), always sent by the server.
     *
     * @return five characters, e.g. {@code 42704}
     */
    public String sqlState() {
        return fields.get(SQLSTATE);
    }

    /**
     * The primary message (M), always sent by the server.
     *
     * @return the message, in the server's lc_messages language
     */
    public String message() {
        return fields.get(MESSAGE);
    }

    /**
     * The detail message (D).
     *
     * @return the detail, or null if none
     */
    public String detail() {
        return fields.get(DETAIL);
    }

    /**
     * The hint (H).
     *
     * @return the hint, or null if none
     */
    public String hint() {
        return fields.get(HINT);
    }

    /**
     * The context (W).
     *
     * @return the context lines, or null if none
     */
    public String where() {
        return fields.get(WHERE);
    }

    @Override
    public String toString() {
        return severity() + " " + sqlState() + ": " + message();
    }
}
