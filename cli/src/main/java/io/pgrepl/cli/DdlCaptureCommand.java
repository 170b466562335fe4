package io.pgrepl.cli;

import static io.pgrepl.cli.IdentifyCommand.await;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.schema.DdlCapture;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code pgrepl ddl install|uninstall|status [URL]}: pgrepl's DDL capture (docs/schema-changes.md),
 * event triggers that tell a stream which statement changed a table. One database per call, as a
 * superuser; JSON output.
 */
final class DdlCaptureCommand implements Main.Command {
    private static final String USAGE = "pgrepl ddl install [URL]\npgrepl ddl uninstall [URL]\npgrepl ddl status [URL]\n"
            + "pgrepl ddl script [--uninstall]";
    private static final List<Opts.Spec> CONNECT = List.copyOf(OAuthTokens.SPECS);
    private static final List<Opts.Spec> SCRIPT = List.of(Opts.Spec.flag("uninstall", "print the uninstall script instead"));

    @Override
    public String summary() {
        return "install, remove or check DDL capture (event triggers telling streams which statement changed a table)";
    }

    @Override
    public Map<String, List<Opts.Spec>> subcommands() {
        Map<String, List<Opts.Spec>> m = new LinkedHashMap<>();
        m.put("install", CONNECT);
        m.put("uninstall", CONNECT);
        m.put("status", CONNECT);
        m.put("script", SCRIPT);
        return m;
    }

    @Override
    public Opts.Help help() {
        List<Opts.Spec> all = new ArrayList<>(CONNECT);
        all.addAll(SCRIPT);
        return new Opts.Help(USAGE,
                "install creates schema pgrepl with its functions and two event triggers (ddl_command_end, sql_drop) in the\n"
                        + "URL's database: each DDL statement on a table then writes a logical message ('pgrepl.ddl') in its own\n"
                        + "transaction, and pgrepl stream --schema-changes joins it to the table's next Relation (renames told\n"
                        + "from drop + add, CREATE and DROP TABLE reported before any row, the statement's text). Needs a\n"
                        + "superuser and PostgreSQL 14+ (pgoutput sends logical messages from 14). Running it again replaces it.\n"
                        + "uninstall removes it (on any version); status says whether both triggers exist and fire; script\n"
                        + "prints the SQL, for installing by hand (docs/ddl-capture.sql is the same).",
                all, "pgrepl ddl install postgresql://postgres@db/app\npgrepl ddl status postgresql://postgres@db/app\n"
                        + "pgrepl ddl script > ddl-capture.sql");
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length < 1) throw new UsageException("missing install, uninstall, status or script");
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        String sub = args[0];
        if (sub.equals("script")) {
            Opts.Parsed p = Opts.parse(SCRIPT, rest);
            if (!p.positional.isEmpty()) throw new UsageException("script takes no URL");
            out.print(p.has("uninstall") ? DdlCapture.uninstallScript() : DdlCapture.installScript());
            return 0;
        }
        if (!subcommands().containsKey(sub)) {
            String best = io.pgrepl.client.config.ClosestName.of(sub, subcommands().keySet(), io.pgrepl.client.config.ClosestName.DEFAULT_LIMIT);
            throw new UsageException("unknown ddl command " + CliErrors.shown(sub)
                    + (best == null ? "; use install, uninstall, status or script" : " (did you mean " + best + "?)"));
        }
        Opts.Parsed p = Opts.parse(CONNECT, rest);
        if (p.positional.size() > 1) throw new UsageException("too many arguments");
        ConnectionConfig cfg = OAuthTokens.apply(IdentifyCommand.parse(p.positional.isEmpty() ? "" : p.positional.get(0)), p)
                .toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            switch (sub) {
                case "install" -> await(DdlCapture.install(c));
                case "uninstall" -> await(DdlCapture.uninstall(c));
                default -> { }
            }
            DdlCapture.Status status = await(DdlCapture.status(c));
            out.println(Json.object().put("database", c.config().database())
                    .put("ddl_capture", status.name().toLowerCase(Locale.ROOT))
                    .put("server_version", c.parameters().get("server_version"))
                    .put("reaches_pgoutput", c.serverVersionNum() >= DdlCapture.MIN_SERVER_VERSION_NUM));
        }
        return 0;
    }
}
