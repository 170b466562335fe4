package io.pgrepl.testkit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * One initdb'd cluster per PostgreSQL version, shared through the cache and copied per server:
 * initdb costs about half a second, a copy a few tens of milliseconds. Roles and passwords differ
 * per server and are added to the copy, so the template is auth-independent. Copies share the
 * template's system identifier.
 */
final class ClusterTemplate {
    static final String KIT_CONF = "pgrepl.conf";
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private ClusterTemplate() {}

    /** The template's data directory. */
    static Path dataDir(PgBinaries.Installation pg) {
        Path dir = KitDirs.once(KitDirs.templates(), pg.artifactVersion(), temp -> {
            ServerUser user = ServerUser.get();
            user.own(temp);
            Path data = temp.resolve("data");
            Processes.Result initdb = Processes.run(user.command(List.of(pg.tool("initdb"), "-D", data.toString(),
                    "-U", PgServerSpec.SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-locale", "-N")),
                    temp, null, TIMEOUT);
            if (!initdb.ok()) {
                throw new IllegalStateException("initdb failed: " + initdb.describe());
            }
            // Every server writes its own settings to this file.
            Files.writeString(data.resolve("postgresql.conf"), "\ninclude '" + KIT_CONF + "'\n",
                    StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        });
        return dir.resolve("data");
    }
}
