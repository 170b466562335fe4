package io.pgrepl.testkit;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Test-only raw-socket startup handshake, so the kit's tests can prove a server is up and which
 * authentication it asks for without the project's client. Answers cleartext and MD5 password
 * requests; for SASL it records the offered mechanisms and stops. Not a client.
 */
final class WireProbe {
    static final int AUTH_OK = 0;
    static final int AUTH_CLEARTEXT = 3;
    static final int AUTH_MD5 = 5;
    static final int AUTH_SASL = 10;

    /** What the server said. {@code authRequests} lists every Authentication code in order. */
    record Result(List<Integer> authRequests, List<String> saslMechanisms, boolean readyForQuery,
            String sqlState, String message, Map<String, String> parameters, X509Certificate peerCertificate,
            String tlsProtocol) {
        boolean authenticated() {
            return authRequests.contains(AUTH_OK) && readyForQuery;
        }

        Integer firstAuthRequest() {
            return authRequests.isEmpty() ? null : authRequests.get(0);
        }
    }

    private String user = PgServerSpec.SUPERUSER;
    private String password = "";
    private String database = "postgres";
    private String replication;
    private ServerTls tls;
    private ServerTls.ClientCert clientCert;

    static WireProbe as(PgUser user) {
        WireProbe p = new WireProbe();
        p.user = user.name();
        p.password = user.password();
        return p;
    }

    WireProbe password(String value) {
        this.password = value;
        return this;
    }

    WireProbe database(String value) {
        this.database = value;
        return this;
    }

    /** "true" for physical, "database" for logical replication connections. */
    WireProbe replication(String value) {
        this.replication = value;
        return this;
    }

    WireProbe tls(ServerTls value) {
        this.tls = value;
        return this;
    }

    WireProbe clientCert(ServerTls.ClientCert value) {
        this.clientCert = value;
        return this;
    }

    /** Sends SSLRequest and returns the one-byte answer ('S' or 'N'). */
    static char sslAnswer(PgServer server) throws IOException {
        try (Socket socket = connect(server)) {
            socket.getOutputStream().write(sslRequest());
            int answer = socket.getInputStream().read();
            return (char) answer;
        }
    }

    Result run(PgServer server) throws IOException, GeneralSecurityException {
        try (Socket plain = connect(server)) {
            Socket socket = plain;
            X509Certificate peer = null;
            String protocol = null;
            if (tls != null) {
                plain.getOutputStream().write(sslRequest());
                int answer = plain.getInputStream().read();
                if (answer != 'S') {
                    throw new IOException("server refused TLS: " + (char) answer);
                }
                SSLSocket ssl = (SSLSocket) sslContext().getSocketFactory()
                        .createSocket(plain, server.host(), server.port(), true);
                SSLParameters params = ssl.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS"); // checks the SAN IP 127.0.0.1
                ssl.setSSLParameters(params);
                ssl.startHandshake();
                peer = (X509Certificate) ssl.getSession().getPeerCertificates()[0];
                protocol = ssl.getSession().getProtocol();
                socket = ssl;
            }
            return handshake(socket, peer, protocol);
        }
    }

    private Result handshake(Socket socket, X509Certificate peer, String protocol) throws IOException {
        OutputStream out = socket.getOutputStream();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        ByteArrayOutputStream params = new ByteArrayOutputStream();
        cstring(params, "user");
        cstring(params, user);
        cstring(params, "database");
        cstring(params, database);
        if (replication != null) {
            cstring(params, "replication");
            cstring(params, replication);
        }
        params.write(0);
        byte[] body = params.toByteArray();
        ByteArrayOutputStream startup = new ByteArrayOutputStream();
        int32(startup, 8 + body.length);
        int32(startup, 196608);
        startup.write(body);
        out.write(startup.toByteArray());
        out.flush();

        List<Integer> auths = new ArrayList<>();
        List<String> mechanisms = new ArrayList<>();
        Map<String, String> parameters = new LinkedHashMap<>();
        while (true) {
            int type;
            try {
                type = in.readUnsignedByte();
            } catch (EOFException e) {
                return new Result(auths, mechanisms, false, null, "connection closed", parameters, peer, protocol);
            }
            int length = in.readInt();
            if (length < 4 || length > 1 << 20) {
                throw new IOException("bad length " + length + " for message " + (char) type);
            }
            byte[] payload = new byte[length - 4];
            in.readFully(payload);
            switch (type) {
                case 'R' -> {
                    int code = ((payload[0] & 0xff) << 24) | ((payload[1] & 0xff) << 16)
                            | ((payload[2] & 0xff) << 8) | (payload[3] & 0xff);
                    auths.add(code);
                    if (code == AUTH_CLEARTEXT) {
                        sendPassword(out, password);
                    } else if (code == AUTH_MD5) {
                        byte[] salt = java.util.Arrays.copyOfRange(payload, 4, 8);
                        sendPassword(out, md5Password(user, password, salt));
                    } else if (code == AUTH_SASL) {
                        for (String m : new String(payload, 4, payload.length - 4, StandardCharsets.UTF_8)
                                .split("\0")) {
                            if (!m.isEmpty()) {
                                mechanisms.add(m);
                            }
                        }
                        return new Result(auths, mechanisms, false, null, null, parameters, peer, protocol);
                    } else if (code != AUTH_OK) {
                        return new Result(auths, mechanisms, false, null, "unhandled auth " + code, parameters,
                                peer, protocol);
                    }
                }
                case 'S' -> {
                    String[] kv = new String(payload, StandardCharsets.UTF_8).split("\0");
                    parameters.put(kv[0], kv.length > 1 ? kv[1] : "");
                }
                case 'E' -> {
                    Map<Character, String> fields = errorFields(payload);
                    return new Result(auths, mechanisms, false, fields.get('C'), fields.get('M'), parameters, peer,
                            protocol);
                }
                case 'Z' -> {
                    return new Result(auths, mechanisms, true, null, null, parameters, peer, protocol);
                }
                default -> {
                    // BackendKeyData, NoticeResponse: not needed
                }
            }
        }
    }

    private static Map<Character, String> errorFields(byte[] payload) {
        Map<Character, String> fields = new LinkedHashMap<>();
        int i = 0;
        while (i < payload.length && payload[i] != 0) {
            char code = (char) payload[i++];
            int end = i;
            while (end < payload.length && payload[end] != 0) {
                end++;
            }
            fields.put(code, new String(payload, i, end - i, StandardCharsets.UTF_8));
            i = end + 1;
        }
        return fields;
    }

    private static void sendPassword(OutputStream out, String password) throws IOException {
        byte[] pw = password.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream msg = new ByteArrayOutputStream();
        msg.write('p');
        int32(msg, 4 + pw.length + 1);
        msg.write(pw);
        msg.write(0);
        out.write(msg.toByteArray());
        out.flush();
    }

    static String md5Password(String user, String password, byte[] salt) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            String inner = HexFormat.of().formatHex(md5.digest((password + user).getBytes(StandardCharsets.UTF_8)));
            md5.update(inner.getBytes(StandardCharsets.US_ASCII));
            md5.update(salt);
            return "md5" + HexFormat.of().formatHex(md5.digest());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private SSLContext sslContext() throws GeneralSecurityException, IOException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", readCert(tls.caCertFile()));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientCert != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", readKey(clientCert.keyFile()), new char[0],
                    new Certificate[] {readCert(clientCert.certFile())});
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    static X509Certificate readCert(Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    static PrivateKey readKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file);
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64));
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(spec);
        } catch (GeneralSecurityException e) {
            return KeyFactory.getInstance("EC").generatePrivate(spec);
        }
    }

    private static Socket connect(PgServer server) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(server.host(), server.port()), 5000);
        socket.setSoTimeout(15000);
        return socket;
    }

    private static byte[] sslRequest() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int32(out, 8);
        int32(out, 80877103);
        return out.toByteArray();
    }

    private static void cstring(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    private static void int32(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }
}
