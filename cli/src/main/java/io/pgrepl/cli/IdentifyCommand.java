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
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length != 1) throw new UsageException("usage: pgrepl identify URL");
        ConnectionConfig cfg = replicationConfig(args[0]);
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

    static ConnectionConfig parse(String url) {
        ConnectionConfig cfg = ConnectionConfig.parse(url);
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
