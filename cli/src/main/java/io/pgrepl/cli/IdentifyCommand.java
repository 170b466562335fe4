package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.IdentifySystem;
import io.pgrepl.codec.Lsn;
import java.io.PrintStream;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** {@code pgrepl identify URL}: IDENTIFY_SYSTEM as one JSON object. */
final class IdentifyCommand implements Main.Command {
    @Override
    public String summary() {
        return "print IDENTIFY_SYSTEM (systemid, timeline, xlogpos, dbname) and server_version as JSON";
    }

    @Override
    public Opts.Help help() {
        return new Opts.Help("pgrepl identify [URL]",
                "Connects as a logical walsender (physical with replication=true in the URL), runs IDENTIFY_SYSTEM\n"
                        + "and prints one JSON object. Without a URL the connection comes from PGHOST, PGPORT, PGUSER,\n"
                        + "PGDATABASE, PGPASSWORD, ... as with psql.",
                java.util.List.of(), "PGHOST=db PGUSER=repl pgrepl identify");
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Opts.Parsed p = Opts.parse(java.util.List.of(), args);
        if (p.positional.size() > 1) throw new UsageException("more than one URL");
        ConnectionConfig cfg = replicationConfig(p.positional.isEmpty() ? "" : p.positional.get(0));
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            IdentifySystem id = await(c.identifySystem());
            out.println(Json.object()
                    .put("systemid", id.systemId())
                    .put("timeline", id.timeline())
                    .put("xlogpos", Lsn.format(id.xlogPos()))
                    .put("dbname", id.dbname())
                    .put("server_version", c.parameters().get("server_version")));
        }
        return 0;
    }

    /** The URL's settings; a logical walsender unless the URL asks for replication=true (physical). */
    static ConnectionConfig replicationConfig(String url) {
        ConnectionConfig cfg = parse(url);
        if (cfg.replication() == ReplicationMode.NONE) {
            cfg = cfg.toBuilder().replication(ReplicationMode.DATABASE).build();
        }
        return cfg;
    }

    /** The URL (or the PG* environment), with an OAuth token source from the environment ({@link OAuthTokens}). */
    static ConnectionConfig parse(String url) {
        ConnectionConfig cfg = OAuthTokens.fromEnvironment(ConnectionConfig.parse(url), System.getenv());
        return cfg.applicationName() == null || cfg.applicationName().equals("pgrepl")
                ? cfg.toBuilder().applicationName("pgrepl-cli").build() : cfg;
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(5, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
