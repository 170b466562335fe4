package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * OAuth bearer tokens (PostgreSQL 18 pg_hba method {@code oauth}) for the CLI: from a command run
 * for each connection (e.g. a cloud SDK printing an access token) or a file re-read for each
 * connection (e.g. a rotated workload-identity token), so a long {@code stream --reconnect}
 * always presents a current one. The token is never printed: a failing command is reported by
 * its exit status only, and the command's stderr goes to pgrepl's stderr unchanged.
 */
final class OAuthTokens {
    static final String COMMAND_ENV = "PGREPL_OAUTH_TOKEN_COMMAND";
    static final String FILE_ENV = "PGREPL_OAUTH_TOKEN_FILE";
    /** A bearer token is a few KB at most; anything longer is not one (and is not read into memory). */
    static final int MAX_TOKEN = 64 * 1024;
    private static final long COMMAND_TIMEOUT_SECONDS = 60;

    static final List<Opts.Spec> SPECS = List.of(
            Opts.Spec.value("oauth-token-command", "CMD", "for a server that asks for OAuth (pg_hba oauth, PG 18): run CMD"
                    + " (sh -c) for each connection and send its output as the bearer token", "$" + COMMAND_ENV),
            Opts.Spec.value("oauth-token-file", "FILE", "as --oauth-token-command, but read the token from FILE for each"
                    + " connection", "$" + FILE_ENV));

    private OAuthTokens() {}

    /** Why no token could be had; its message is pgrepl's own words, never the token, so the CLI prints it. */
    static final class Unavailable extends RuntimeException {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The options if given, else the environment; a config without either is returned as is. */
    static ConnectionConfig apply(ConnectionConfig cfg, Opts.Parsed p) throws UsageException {
        return apply(cfg, p.get("oauth-token-command"), p.get("oauth-token-file"), Map.of());
    }

    /** From {@link #COMMAND_ENV} or {@link #FILE_ENV}, for every command. */
    static ConnectionConfig fromEnvironment(ConnectionConfig cfg, Map<String, String> env) {
        try {
            return apply(cfg, null, null, env);
        } catch (UsageException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    static ConnectionConfig apply(ConnectionConfig cfg, String command, String file, Map<String, String> env)
            throws UsageException {
        if (command == null && file == null) {
            command = blankToNull(env.get(COMMAND_ENV));
            file = blankToNull(env.get(FILE_ENV));
            if (command != null && file != null) {
                throw new UsageException(COMMAND_ENV + " and " + FILE_ENV + " are both set: unset one");
            }
        }
        if (command != null && file != null) throw new UsageException("--oauth-token-command and --oauth-token-file exclude each other");
        if (command != null && command.isBlank()) throw new UsageException("--oauth-token-command needs a command");
        if (command == null && file == null) return cfg;
        Supplier<String> source = command != null ? fromCommand(command) : fromFile(Path.of(file));
        return cfg.toBuilder().oauthToken(source).build();
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v;
    }

    static Supplier<String> fromFile(Path file) {
        return () -> {
            try (InputStream in = Files.newInputStream(file)) {
                return token(in.readNBytes(MAX_TOKEN + 1), "the OAuth token file " + file);
            } catch (IOException e) {
                throw new Unavailable("cannot read the OAuth token file " + file + " (" + e.getClass().getSimpleName() + ")", e);
            }
        };
    }

    static Supplier<String> fromCommand(String command) {
        return () -> {
            Process p;
            try {
                p = new ProcessBuilder("/bin/sh", "-c", command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            } catch (IOException e) {
                throw new Unavailable("cannot run the OAuth token command (" + e.getClass().getSimpleName() + ")", e);
            }
            try (InputStream out = p.getInputStream()) {
                byte[] bytes = out.readNBytes(MAX_TOKEN + 1);
                if (bytes.length > MAX_TOKEN) p.destroy();
                if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new Unavailable("the OAuth token command did not finish within " + COMMAND_TIMEOUT_SECONDS + " s", null);
                }
                if (p.exitValue() != 0 && bytes.length <= MAX_TOKEN) {
                    throw new Unavailable("the OAuth token command exited with status " + p.exitValue(), null);
                }
                return token(bytes, "the OAuth token command's output");
            } catch (IOException e) {
                throw new Unavailable("cannot read the OAuth token command's output", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Unavailable("interrupted while the OAuth token command ran", e);
            }
        };
    }

    /** The token without the line end a file or an echo leaves; the library checks its characters. */
    private static String token(byte[] bytes, String from) {
        if (bytes.length > MAX_TOKEN) throw new Unavailable(from + " is longer than " + MAX_TOKEN + " bytes: not a token", null);
        String t = new String(bytes, StandardCharsets.US_ASCII).strip();
        if (t.isEmpty()) throw new Unavailable(from + " is empty", null);
        return t;
    }
}
