package io.pgrepl.client.internal;

import io.pgrepl.client.PgClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.function.Supplier;

/**
 * Interim authentication (trust, cleartext, MD5) until the auth package's authenticator is
 * wired in. Knows no policy and no SASL.
 */
public final class BasicAuthSession implements AuthSession {
    private final String user;
    private final Supplier<byte[]> password;

    public BasicAuthSession(String user, Supplier<byte[]> password) {
        this.user = user;
        this.password = password;
    }

    private byte[] requirePassword() {
        byte[] p = password.get();
        if (p == null || p.length == 0) {
            throw new PgClientException(PgClientException.Kind.POLICY, "server requested a password, but none was supplied");
        }
        return p;
    }

    @Override
    public byte[] onCleartext() {
        return requirePassword();
    }

    @Override
    public byte[] onMd5(byte[] salt) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update(requirePassword());
            md.update(user.getBytes(StandardCharsets.UTF_8));
            String inner = hex(md.digest());
            md.update(inner.getBytes(StandardCharsets.US_ASCII));
            md.update(salt);
            return ("md5" + hex(md.digest())).getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        return sb.toString();
    }

    @Override
    public SaslStart onSasl(List<String> mechanisms) {
        throw new PgClientException(PgClientException.Kind.UNSUPPORTED_AUTH, "SASL authentication is not available in this build");
    }

    @Override
    public byte[] onSaslContinue(byte[] serverData) {
        throw new PgClientException(PgClientException.Kind.PROTOCOL, "protocol violation: unexpected SASLContinue");
    }

    @Override
    public void onSaslFinal(byte[] serverData) {
        throw new PgClientException(PgClientException.Kind.PROTOCOL, "protocol violation: unexpected SASLFinal");
    }

    @Override
    public void onOk() {}

    @Override
    public RuntimeException unsupported(int code) {
        return new PgClientException(PgClientException.Kind.UNSUPPORTED_AUTH, AuthCodes.describe(code));
    }
}
