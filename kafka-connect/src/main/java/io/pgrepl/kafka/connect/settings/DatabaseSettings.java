package io.pgrepl.kafka.connect.settings;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.config.SslMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.types.Password;

/**
 * Debezium's connection settings (database.hostname, port, user, dbname and the ssl* files), so
 * that a Debezium configuration connects unchanged and never with less security than it asks for:
 * they build the same connection settings database.url would. Given beside database.url, each must
 * say what the URL says (libpq's defaults included: a URL without sslmode means prefer), or the
 * configuration is refused: one of the two would otherwise be ignored.
 */
public final class DatabaseSettings {
    private DatabaseSettings() {}

    public static final String URL = "database.url";
    public static final String HOSTNAME = "database.hostname";
    public static final String PORT = "database.port";
    public static final String USER = "database.user";
    public static final String DBNAME = "database.dbname";
    public static final String SSLMODE = "database.sslmode";
    public static final String SSLROOTCERT = "database.sslrootcert";
    public static final String SSLCERT = "database.sslcert";
    public static final String SSLKEY = "database.sslkey";
    public static final String SSLPASSWORD = "database.sslpassword";
    public static final String INITIAL_STATEMENTS = "database.initial.statements";

    private static final List<String> PARTS = List.of(HOSTNAME, PORT, USER, DBNAME, SSLMODE, SSLROOTCERT, SSLCERT, SSLKEY,
            SSLPASSWORD);

    public static ConfigDef define(ConfigDef d) {
        return d
                .define(HOSTNAME, Type.STRING, null, Importance.HIGH, "Instead of database.url, as Debezium: the server's host.")
                .define(PORT, Type.INT, null, (name, v) -> {
                    if (v != null) ConfigDef.Range.between(1, 65535).ensureValid(name, v);
                }, Importance.HIGH,
                        "With database.hostname: the port (5432 when not given).")
                .define(USER, Type.STRING, null, Importance.HIGH, "With database.hostname: the user (a REPLICATION role).")
                .define(DBNAME, Type.STRING, null, Importance.HIGH, "With database.hostname: the database.")
                .define(SSLMODE, Type.STRING, null, (name, v) -> {
                    if (v != null) ConfigDef.CaseInsensitiveValidString.in("disable", "allow", "prefer", "require", "verify-ca",
                            "verify-full").ensureValid(name, v);
                }, Importance.HIGH,
                        "libpq's sslmode (prefer when not given); beside database.url it must equal the URL's.")
                .define(SSLROOTCERT, Type.STRING, null, Importance.MEDIUM, "File of the CA certificates (PEM) that verify-ca and verify-full trust.")
                .define(SSLCERT, Type.STRING, null, Importance.MEDIUM, "Client certificate file (PEM).")
                .define(SSLKEY, Type.STRING, null, Importance.MEDIUM, "Client key file (PEM, PKCS#8 or PKCS#1).")
                .define(SSLPASSWORD, Type.PASSWORD, null, Importance.MEDIUM, "Password of an encrypted client key.")
                .define(INITIAL_STATEMENTS, Type.STRING, null, Importance.LOW,
                        "Statements separated by ';' (';;' for a semicolon in one), as Debezium's: only SET name = value,"
                                + " SET ROLE name and SET TIME ZONE value, which become session parameters of every"
                                + " connection that reads table rows (the snapshot's COPY workers, incremental snapshot"
                                + " chunks, reselect.unavailable.values); not the replication connection.");
    }

    /** {@return the connection settings of the parts, libpq's defaults for what is not given} */
    public static ConnectionConfig.Builder fromParts(Function<String, Object> setting) {
        ConnectionConfig.Builder b = ConnectionConfig.builder().host(string(setting.apply(HOSTNAME)));
        Object port = setting.apply(PORT);
        if (port != null) b.port(Integer.parseInt(port.toString().trim()));
        String user = string(setting.apply(USER));
        if (user != null) b.user(user);
        String db = string(setting.apply(DBNAME));
        if (db != null) b.database(db);
        String mode = string(setting.apply(SSLMODE));
        if (mode != null) b.sslMode(sslMode(mode));
        String f = string(setting.apply(SSLROOTCERT));
        if (f != null) b.sslRootCert(Path.of(f));
        f = string(setting.apply(SSLCERT));
        if (f != null) b.sslCert(Path.of(f));
        f = string(setting.apply(SSLKEY));
        if (f != null) b.sslKey(Path.of(f));
        String pw = string(setting.apply(SSLPASSWORD));
        if (pw != null) b.sslPassword(pw);
        return b;
    }

    /**
     * Problems of the combination: neither database.url nor database.hostname, or a part given
     * beside database.url that says something else than the URL. Messages never show a value of
     * the URL (it may hold a password) nor the key password.
     */
    static Map<String, List<String>> problems(Map<String, ?> props) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        String url = string(props.get(URL));
        String host = string(props.get(HOSTNAME));
        if (url == null && host == null) {
            add(out, URL, URL + " is required unless " + HOSTNAME + " (with " + PORT + ", " + USER + ", " + DBNAME
                    + ") is given, as in Debezium");
            return out;
        }
        if (url == null) {
            try {
                fromParts(props::get);
            } catch (RuntimeException e) {
                add(out, PORT, PORT + " is not a port number");
            }
            return out;
        }
        ConnectionConfig parsed;
        try {
            parsed = ConnectionConfig.parse(url);
        } catch (RuntimeException e) {
            return out; // database.url's own validator names it
        }
        DriverSettings.conflicts(props, parsed).forEach((k, m) -> out.computeIfAbsent(k, x -> new ArrayList<>()).addAll(m));
        for (String part : PARTS) {
            String given = string(props.get(part));
            if (given == null) continue;
            String inUrl = inUrl(parsed, part);
            if (!same(part, given, inUrl)) {
                boolean secret = part.equals(SSLPASSWORD);
                add(out, part, part + (secret ? "" : "=" + given) + " conflicts with " + URL + " ("
                        + (secret ? "its sslpassword differs" : urlKey(part) + (inUrl == null ? " not set" : "=" + inUrl))
                        + "): give it in one place, database.url or the database.* settings");
            }
        }
        return out;
    }

    private static boolean same(String part, String given, String inUrl) {
        if (inUrl == null) return false;
        if (part.equals(SSLMODE)) return given.trim().equalsIgnoreCase(inUrl);
        if (part.equals(SSLROOTCERT) || part.equals(SSLCERT) || part.equals(SSLKEY)) {
            return Path.of(given.trim()).equals(Path.of(inUrl));
        }
        return given.trim().equals(inUrl);
    }

    private static String inUrl(ConnectionConfig c, String part) {
        return switch (part) {
            case HOSTNAME -> c.host();
            case PORT -> String.valueOf(c.port());
            case USER -> c.user();
            case DBNAME -> c.database();
            case SSLMODE -> c.sslMode().name().toLowerCase(Locale.ROOT).replace('_', '-');
            case SSLROOTCERT -> c.sslRootCert() == null ? null : c.sslRootCert().toString();
            case SSLCERT -> c.sslCert() == null ? null : c.sslCert().toString();
            case SSLKEY -> c.sslKey() == null ? null : c.sslKey().toString();
            case SSLPASSWORD -> c.sslPassword();
            default -> throw new IllegalArgumentException(part);
        };
    }

    private static String urlKey(String part) {
        return part.equals(HOSTNAME) ? "host" : part.equals(DBNAME) ? "dbname" : part.substring("database.".length());
    }

    static SslMode sslMode(String s) {
        return SslMode.valueOf(s.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    private static void add(Map<String, List<String>> out, String key, String message) {
        out.computeIfAbsent(key, k -> new ArrayList<>()).add(message);
    }

    private static String string(Object o) {
        if (o instanceof Password p) o = p.value();
        if (o == null) return null;
        String s = Objects.toString(o).trim();
        return s.isEmpty() ? null : s;
    }
}
