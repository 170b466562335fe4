package io.pgrepl.client.internal.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A libpq password file ({@code ~/.pgpass}): lines of {@code hostname:port:database:username:password},
 * first match wins, a field of exactly {@code *} matches anything, {@code \:} and {@code \\} escape,
 * lines starting with {@code #} are comments. Like libpq on Unix, a file that is not a regular file or
 * that grants any access to group or others is ignored with a warning.
 */
public final class PgPass {
    private static final Logger LOG = LoggerFactory.getLogger(PgPass.class);
    private static final Set<PosixFilePermission> GROUP_OR_OTHER = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final String WILDCARD = "\0*"; // cannot come from a file line: marks an unescaped '*'

    private static final class Entry {
        final String[] fields; // host, port, database, user (WILDCARD for '*')
        final String password;

        Entry(String[] fields, String password) {
            this.fields = fields;
            this.password = password;
        }
    }

    private final List<Entry> entries;

    private PgPass(List<Entry> entries) {
        this.entries = entries;
    }

    /**
     * Parses file content; malformed lines (fewer than four separators) never match.
     *
     * @param content the file's text
     * @return the entries
     */
    public static PgPass parse(String content) {
        List<Entry> entries = new ArrayList<>();
        for (String line : content.split("\n", -1)) {
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Entry e = parseLine(line);
            if (e != null) {
                entries.add(e);
            }
        }
        return new PgPass(entries);
    }

    private static Entry parseLine(String line) {
        String[] fields = new String[4];
        int i = 0;
        for (int f = 0; f < 4; f++) {
            if (line.startsWith("*:", i)) {
                fields[f] = WILDCARD;
                i += 2;
                continue;
            }
            StringBuilder b = new StringBuilder();
            boolean ended = false;
            while (i < line.length()) {
                char c = line.charAt(i++);
                if (c == '\\' && i < line.length()) {
                    b.append(line.charAt(i++));
                } else if (c == ':') {
                    ended = true;
                    break;
                } else {
                    b.append(c);
                }
            }
            if (!ended) {
                return null;
            }
            fields[f] = b.toString();
        }
        StringBuilder pw = new StringBuilder();
        while (i < line.length()) {
            char c = line.charAt(i++);
            if (c == '\\' && i < line.length()) {
                pw.append(line.charAt(i++));
            } else if (c == ':') {
                break; // libpq stops the password at an unescaped ':'
            } else {
                pw.append(c);
            }
        }
        return new Entry(fields, pw.toString());
    }

    /**
     * Reads a password file, or returns empty when it is missing, not a regular file, or readable
     * by group/others (warned, as libpq does).
     *
     * @param file the password file
     * @return the entries, or empty
     * @throws IOException if the file exists but cannot be read
     */
    public static Optional<PgPass> load(Path file) throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        if (!Files.isRegularFile(file)) {
            LOG.warn("password file \"{}\" is not a plain file; ignoring it", file);
            return Optional.empty();
        }
        PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (posix != null) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            if (perms.stream().anyMatch(GROUP_OR_OTHER::contains)) {
                LOG.warn("password file \"{}\" has group or world access; permissions should be u=rw (0600) or less;"
                        + " ignoring it", file);
                return Optional.empty();
            }
        }
        return Optional.of(parse(Files.readString(file, StandardCharsets.UTF_8)));
    }

    /**
     * The password of the first matching line. Empty passwords count as none.
     *
     * @param host     the {@code host} parameter, else {@code hostaddr}, else {@code localhost}
     * @param port     the port as given (compared as text, as libpq does), e.g. {@code "5432"}
     * @param database the database name (libpq defaults it to the user name)
     * @param user     the user name
     * @return the password, or empty
     */
    public Optional<String> lookup(String host, String port, String database, String user) {
        String[] want = {host, port, database, user};
        for (Entry e : entries) {
            boolean match = true;
            for (int f = 0; f < 4 && match; f++) {
                match = e.fields[f] == WILDCARD || e.fields[f].equals(want[f]);
            }
            if (match) {
                return e.password.isEmpty() ? Optional.empty() : Optional.of(e.password);
            }
        }
        return Optional.empty();
    }

    /** {@return the number of well-formed lines} */
    public int size() {
        return entries.size();
    }

    @Override
    public String toString() {
        return "PgPass[" + entries.size() + " entries]";
    }
}
