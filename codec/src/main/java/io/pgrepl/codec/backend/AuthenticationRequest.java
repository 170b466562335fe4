package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;
import java.util.ArrayList;
import java.util.List;

/**
 * The Authentication* family 'R': Int32 request code, then code-specific data. Decoded to a
 * small sealed hierarchy; the SASL data is copied because the authenticator keeps it
 * (it is part of the SCRAM AuthMessage).
 */
public sealed interface AuthenticationRequest {
    /** AuthenticationOk: the server accepted the credentials. */
    int OK = 0;
    /** AuthenticationKerberosV5: not supported by PostgreSQL since 9.4, nor by this client. */
    int KERBEROS_V5 = 2;
    /** AuthenticationCleartextPassword: send the password as is. */
    int CLEARTEXT_PASSWORD = 3;
    /** AuthenticationMD5Password: send {@code "md5"} + hex md5(hex md5(password + user) + salt); a 4-byte salt follows. */
    int MD5_PASSWORD = 5;
    /** AuthenticationGSS: start GSSAPI negotiation (not supported by this client). */
    int GSS = 7;
    /** AuthenticationGSSContinue: more GSSAPI or SSPI data (not supported by this client). */
    int GSS_CONTINUE = 8;
    /** AuthenticationSSPI: start SSPI negotiation (not supported by this client). */
    int SSPI = 9;
    /** AuthenticationSASL: a list of SASL mechanisms follows, e.g. SCRAM-SHA-256. */
    int SASL = 10;
    /** AuthenticationSASLContinue: a SASL challenge follows (server-first-message in SCRAM). */
    int SASL_CONTINUE = 11;
    /** AuthenticationSASLFinal: SASL outcome data follows (server-final-message in SCRAM). */
    int SASL_FINAL = 12;

    /**
     * The request code, the Int32 that opens every Authentication message.
     *
     * @return one of the constants above, or the unknown code for {@link Unsupported}
     */
    int code();

    /** AuthenticationOk: authentication succeeded; ParameterStatus and BackendKeyData follow. */
    record Ok() implements AuthenticationRequest {
        public int code() { return OK; }
    }

    /** AuthenticationCleartextPassword: the server asks for the password in clear text. */
    record CleartextPassword() implements AuthenticationRequest {
        public int code() { return CLEARTEXT_PASSWORD; }
    }

    /**
     * AuthenticationMD5Password: the server asks for an MD5-hashed password.
     *
     * @param salt the 4-byte salt to hash with
     */
    record Md5Password(byte[] salt) implements AuthenticationRequest {
        public int code() { return MD5_PASSWORD; }
    }

    /**
     * AuthenticationSASL: the server starts SASL and lists the mechanisms it accepts.
     *
     * @param mechanisms mechanism names in the server's order of preference, e.g. {@code SCRAM-SHA-256-PLUS}
     */
    record Sasl(List<String> mechanisms) implements AuthenticationRequest {
        public int code() { return SASL; }
    }

    /**
     * AuthenticationSASLContinue: a SASL challenge.
     *
     * @param data the mechanism's challenge bytes (SCRAM's server-first-message); a copy the caller owns
     */
    record SaslContinue(byte[] data) implements AuthenticationRequest {
        public int code() { return SASL_CONTINUE; }
    }

    /**
     * AuthenticationSASLFinal: SASL completed; the server's last data for the client to verify.
     *
     * @param data the mechanism's outcome bytes (SCRAM's server-final-message); a copy the caller owns
     */
    record SaslFinal(byte[] data) implements AuthenticationRequest {
        public int code() { return SASL_FINAL; }
    }

    /**
     * Kerberos V5, GSS, GSSContinue, SSPI or a code this client does not know.
     *
     * @param code the request code as sent
     */
    record Unsupported(int code) implements AuthenticationRequest {}

    /**
     * Decodes an Authentication message payload.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return the request; SASL data and the MD5 salt are copied out of the buffer
     * @throws MalformedMessageException if the payload is truncated or has the wrong size for its code
     */
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
