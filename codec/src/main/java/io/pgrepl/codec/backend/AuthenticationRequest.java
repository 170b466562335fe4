package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;
import java.util.ArrayList;
import java.util.List;

/**
 * The Authentication* family 'R': Int32 request code, then code-specific data. Decoded to a
 * small sealed hierarchy; the SASL data is copied because the authenticator keeps it
 * (it is part of the SCRAM AuthMessage).
 */
public sealed interface AuthenticationRequest {
    int OK = 0;
    int KERBEROS_V5 = 2;
    int CLEARTEXT_PASSWORD = 3;
    int MD5_PASSWORD = 5;
    int GSS = 7;
    int GSS_CONTINUE = 8;
    int SSPI = 9;
    int SASL = 10;
    int SASL_CONTINUE = 11;
    int SASL_FINAL = 12;

    int code();

    record Ok() implements AuthenticationRequest {
        public int code() { return OK; }
    }

    record CleartextPassword() implements AuthenticationRequest {
        public int code() { return CLEARTEXT_PASSWORD; }
    }

    record Md5Password(byte[] salt) implements AuthenticationRequest {
        public int code() { return MD5_PASSWORD; }
    }

    record Sasl(List<String> mechanisms) implements AuthenticationRequest {
        public int code() { return SASL; }
    }

    record SaslContinue(byte[] data) implements AuthenticationRequest {
        public int code() { return SASL_CONTINUE; }
    }

    record SaslFinal(byte[] data) implements AuthenticationRequest {
        public int code() { return SASL_FINAL; }
    }

    /** Kerberos V5, GSS, GSSContinue, SSPI or a code this client does not know. */
    record Unsupported(int code) implements AuthenticationRequest {}

    static AuthenticationRequest decode(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Wire.require(base, 4, end, "Authentication", base, "request code");
        int code = payload.getInt(base);
        int body = base + 4;
        int rest = end - body;
        switch (code) {
            case OK, CLEARTEXT_PASSWORD -> {
                if (rest != 0) throw new MalformedMessageException("Authentication", 4, rest + " unexpected bytes for code " + code);
                return code == OK ? new Ok() : new CleartextPassword();
            }
            case MD5_PASSWORD -> {
                if (rest != 4) throw new MalformedMessageException("Authentication", 4, "MD5 salt of " + rest + " bytes, expected 4");
                byte[] salt = new byte[4];
                payload.getBytes(body, salt);
                return new Md5Password(salt);
            }
            case SASL -> {
                List<String> mechs = new ArrayList<>();
                int i = body;
                while (true) {
                    Wire.require(i, 1, end, "Authentication", base, "mechanism list");
                    if (payload.getByte(i) == 0) {
                        i++;
                        break;
                    }
                    int nul = Wire.cstringEnd(payload, i, end, "Authentication", base);
                    mechs.add(Wire.utf8(payload, i, nul));
                    i = nul + 1;
                }
                if (i != end) throw new MalformedMessageException("Authentication", i - base, "trailing bytes after mechanism list");
                return new Sasl(List.copyOf(mechs));
            }
            case SASL_CONTINUE, SASL_FINAL -> {
                byte[] data = new byte[rest];
                payload.getBytes(body, data);
                return code == SASL_CONTINUE ? new SaslContinue(data) : new SaslFinal(data);
            }
            default -> {
                return new Unsupported(code);
            }
        }
    }
}
