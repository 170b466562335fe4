package io.pgrepl.client.schema;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * pgrepl's optional DDL capture: event triggers on {@code ddl_command_end} and {@code sql_drop}
 * (and on {@code ddl_command_start} for CREATE TABLE AS and SELECT INTO) that write a transactional logical message ({@value SchemaTracker#DDL_PREFIX}) for every table
 * or column a statement creates, alters or drops, so a stream can tell a rename from a drop and an
 * add, report CREATE TABLE and DROP TABLE before any row, and carry the statement's text. The
 * stream works without it: Relation messages still tell every new shape, at the table's next row.
 *
 * <p>Installing needs a superuser (event triggers do, on every version), in each database whose
 * tables are streamed. The messages reach a stream only through pgoutput's {@code messages}
 * option, which PostgreSQL has from 14: {@link #install} refuses older servers. The same script,
 * for installing by hand, is docs/ddl-capture.sql; what it costs is in docs/schema-changes.md.
 */
public final class DdlCapture {
    /** The event trigger on {@code ddl_command_start}, for CREATE TABLE AS and SELECT INTO. */
    public static final String DDL_COMMAND_START_TRIGGER = "pgrepl_ddl_command_start";
    /** The event trigger on {@code ddl_command_end}. */
    public static final String DDL_COMMAND_END_TRIGGER = "pgrepl_ddl_command_end";
    /** The event trigger on {@code sql_drop}. */
    public static final String SQL_DROP_TRIGGER = "pgrepl_sql_drop";
    /** The first server version whose pgoutput can send logical messages ({@code messages 'true'}). */
    public static final int MIN_SERVER_VERSION_NUM = 140000;

    private DdlCapture() {}

    /** {@return the install script: schema {@code pgrepl}, its functions and the three event triggers; replaces an earlier install} */
    public static String installScript() {
        return resource("ddl-capture-install.sql");
    }

    /** {@return the uninstall script: drops the triggers, the functions, and schema {@code pgrepl} when it is then empty} */
    public static String uninstallScript() {
        return resource("ddl-capture-uninstall.sql");
    }

    /**
     * Runs {@link #installScript()} in one transaction on an ordinary connection of a superuser.
     *
     * @param conn a connection to the database whose DDL should be captured
     * @return completes when installed; fails with {@link PgClientException} (UNSUPPORTED_BY_SERVER)
     *         before PostgreSQL 14, or with the server's error (for example 42501 for a role that is not superuser)
     */
    public static CompletionStage<Void> install(PgConnection conn) {
        if (conn.serverVersionNum() < MIN_SERVER_VERSION_NUM) {
            return CompletableFuture.failedFuture(new PgClientException(PgClientException.Kind.UNSUPPORTED_BY_SERVER,
                    "DDL capture needs PostgreSQL 14 or later (pgoutput sends logical messages from 14; this server is "
                            + conn.parameters().getOrDefault("server_version", String.valueOf(conn.serverVersionNum()))
                            + "); without it schema changes are still reported from Relation messages"));
        }
        return conn.simpleQuery(installScript()).thenApply(r -> null);
    }

    /**
     * Runs {@link #uninstallScript()} in one transaction (on any version: it only drops what is there).
     *
     * @param conn a superuser's connection to the database
     * @return completes when removed
     */
    public static CompletionStage<Void> uninstall(PgConnection conn) {
        return conn.simpleQuery(uninstallScript()).thenApply(r -> null);
    }

    /** Whether the capture is installed, and whether its triggers fire ({@code pg_event_trigger.evtenabled}). */
    public enum Status {
        /** None of the triggers exists. */
        NOT_INSTALLED,
        /** The three triggers exist and fire on ordinary sessions (enabled {@code O} or {@code A}). */
        ENABLED,
        /**
         * A trigger is missing (an install by an earlier pgrepl lacks {@code pgrepl_ddl_command_start},
         * so CREATE TABLE AS is reported after its rows), or one is disabled or set to fire only on replicas.
         */
        INCOMPLETE
    }

    /**
     * Reads the triggers from {@code pg_event_trigger}.
     *
     * @param conn any connection to the database
     * @return the status
     */
    public static CompletionStage<Status> status(PgConnection conn) {
        return conn.query("SELECT evtname, evtenabled FROM pg_catalog.pg_event_trigger WHERE evtname IN ('"
                + DDL_COMMAND_START_TRIGGER + "', '" + DDL_COMMAND_END_TRIGGER + "', '" + SQL_DROP_TRIGGER + "')").thenApply(DdlCapture::status);
    }

    private static Status status(QueryResult r) {
        if (r.rows().isEmpty()) return Status.NOT_INSTALLED;
        int firing = 0;
        for (Row row : r.rows()) {
            String enabled = row.get(1);
            if ("O".equals(enabled) || "A".equals(enabled)) firing++;
        }
        return firing == 3 ? Status.ENABLED : Status.INCOMPLETE;
    }

    private static String resource(String name) {
        try (InputStream in = DdlCapture.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
