package io.pgrepl.client.internal.config;

import io.pgrepl.client.config.ConnInfoException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The URI form of a connection string,
 * {@code postgresql://[user[:password]@][host][:port][,host[:port]...][/dbname][?param=value&...]},
 * turned into libpq parameters: several hosts become comma-separated {@code host} and {@code port}
 * lists, as libpq does. Errors never repeat text that may be part of a password.
 */
final class ConnInfoUri {
    private ConnInfoUri() {
    }

    static LinkedHashMap<String, String> parse(String uri) {
        String rest;
        if (uri.startsWith("postgresql://")) {
            rest = uri.substring("postgresql://".length());
        } else if (uri.startsWith("postgres://")) {
            rest = uri.substring("postgres://".length());
        } else {
            throw new ConnInfoException("connection URI must start with postgresql:// or postgres://");
        }
        LinkedHashMap<String, String> out = new LinkedHashMap<>();
        // As libpq: credentials end at the first '@' before any '/'. A '/' inside the password
        // would cut the credentials short and spill the password's tail into the port or dbname:
        // refuse that shape rather than echo it (an '@' in the path is where such a tail shows).
        int slash = rest.indexOf('/');
        int at = rest.indexOf('@');
        int query = rest.indexOf('?');
        if (slash >= 0 && (at < 0 || at > slash)) {
            String path = rest.substring(slash, query < 0 || query < slash ? rest.length() : query);
            if (path.indexOf('@') >= 0) {
                throw new ConnInfoException("unexpected \"@\" after the host in connection URI:"
                        + " percent-encode reserved characters in the user name, password and dbname ('/' as %2F, '@' as %40)");
            }
        }
        if (at >= 0 && (slash < 0 || at < slash)) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            if (!user.isEmpty()) {
                ConnInfoParameters.put(out, "user", decode(user, "user"));
            }
            if (colon >= 0) {
                ConnInfoParameters.put(out, "password", decode(userInfo.substring(colon + 1), "password"));
            }
        }
        int i = 0;
        int n = rest.length();
        List<String> hosts = new ArrayList<>();
        List<String> ports = new ArrayList<>();
        while (true) {
            String host;
            if (i < n && rest.charAt(i) == '[') {
                int close = rest.indexOf(']', i);
                if (close < 0) {
                    throw new ConnInfoException("missing \"]\" in IPv6 host address in URI");
                }
                host = rest.substring(i + 1, close);
                if (host.isEmpty()) {
                    throw new ConnInfoException("IPv6 host address may not be empty in URI");
                }
                i = close + 1;
                if (i < n && "/?:,".indexOf(rest.charAt(i)) < 0) {
                    throw new ConnInfoException("unexpected character after IPv6 host address in URI");
                }
            } else {
                int start = i;
                while (i < n && "/?:,".indexOf(rest.charAt(i)) < 0) {
                    i++;
                }
                host = decode(rest.substring(start, i), "host");
            }
            String port = "";
            if (i < n && rest.charAt(i) == ':') {
                int start = ++i;
                while (i < n && "/?,".indexOf(rest.charAt(i)) < 0) {
                    i++;
                }
                port = decode(rest.substring(start, i), "port");
                // Checked here, without the text: a malformed URI can put part of a password here.
                if (!port.isEmpty() && (port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9'))) {
                    throw new ConnInfoException("invalid port number in connection URI"
                            + " (percent-encode reserved characters such as '/' in the password)");
                }
            }
            if (host.indexOf(',') >= 0) {
                throw new ConnInfoException("a percent-encoded \",\" is not allowed in a URI host name");
            }
            hosts.add(host);
            ports.add(port);
            if (i < n && rest.charAt(i) == ',') {
                i++;
                continue;
            }
            break;
        }
        if (hosts.stream().anyMatch(h -> !h.isEmpty()) || hosts.size() > 1) {
            ConnInfoParameters.put(out, "host", String.join(",", hosts));
        }
        if (ports.stream().anyMatch(p -> !p.isEmpty())) {
            ConnInfoParameters.put(out, "port", String.join(",", ports));
        }
        if (i < n && rest.charAt(i) == '/') {
            int start = ++i;
            while (i < n && rest.charAt(i) != '?') {
                i++;
            }
            String db = decode(rest.substring(start, i), "dbname");
            if (!db.isEmpty()) {
                ConnInfoParameters.put(out, "dbname", db);
            }
        }
        if (i < n && rest.charAt(i) == '?') {
            for (String pair : rest.substring(i + 1).split("&", -1)) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                if (eq < 0) {
                    throw new ConnInfoException("missing key/value separator \"=\" in URI query parameter");
                }
                String key = decode(pair.substring(0, eq), "query parameter name");
                String value = decode(pair.substring(eq + 1), "value of " + key);
                if (key.equals("ssl") && value.equals("true")) {
                    // libpq's compatibility with JDBC URIs
                    key = "sslmode";
                    value = "require";
                }
                if (!ConnInfoParameters.NAMES.contains(key)) {
                    throw new ConnInfoException("invalid URI query parameter" + ConnInfoParameters.unknownName(key));
                }
                ConnInfoParameters.put(out, key, value);
            }
        } else if (i < n) {
            throw new ConnInfoException("unexpected character in connection URI after the host");
        }
        return out;
    }

    /** Percent-decoding to UTF-8; the error never repeats the text (it may be a password). */
    static String decode(String s, String what) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] raw = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] != '%') {
                bytes.write(raw[i]);
                continue;
            }
            if (i + 2 >= raw.length || Character.digit(raw[i + 1], 16) < 0 || Character.digit(raw[i + 2], 16) < 0) {
                throw new ConnInfoException("invalid percent-encoded token in URI " + what);
            }
            int b = Character.digit(raw[i + 1], 16) * 16 + Character.digit(raw[i + 2], 16);
            if (b == 0) {
                throw new ConnInfoException("forbidden value %00 in percent-encoded URI " + what);
            }
            bytes.write(b);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new ConnInfoException("percent-encoded URI " + what + " is not valid UTF-8");
        }
    }
}
