package io.pgrepl.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/** Entry point of the {@code pgrepl} command: picks a sub-command and maps failures to exit codes. */
public final class Main {
    /** A sub-command: gets its own arguments, returns the process exit code. */
    interface Command {
        int run(String[] args, PrintStream out, PrintStream err) throws Exception;

        String summary();

        Opts.Help help();

        /** Sub-commands and their options (the slot command's create, drop, list); empty: none. */
        default java.util.Map<String, java.util.List<Opts.Spec>> subcommands() {
            return java.util.Map.of();
        }
    }

    /** True in the real process (set by {@link #main}): only then may a command take over SIGINT/SIGTERM. */
    static volatile boolean ownsProcess;

    private static Map<String, Command> commands() {
        Map<String, Command> m = new TreeMap<>();
        m.put("ddl", new DdlCaptureCommand());
        m.put("decode", new DecodeCommand());
        m.put("demo", new DemoCommand());
        m.put("identify", new IdentifyCommand());
        m.put("slot", new SlotCommand());
        m.put("snapshot", new SnapshotCommand());
        m.put("stream", new StreamCommand());
        m.put("top", new TopCommand());
        m.put("completion", new CompletionCommand(m));
        return m;
    }

    public static void main(String[] args) {
        ownsProcess = true;
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, Command> commands = commands();
        if (args.length == 0) {
            usage(commands, err);
            return 2;
        }
        if (args[0].equals("--version") || args[0].equals("-V")) {
            out.println("pgrepl " + version());
            return 0;
        }
        if (args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            if (args.length == 1) {
                usage(commands, out);
                return 0;
            }
            Command c = commands.get(args[1]);
            if (c == null) return unknown(args[1], commands, err);
            c.help().print(out);
            return 0;
        }
        Command c = commands.get(args[0]);
        if (c == null) return unknown(args[0], commands, err);
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        for (String a : rest) {
            if (a.equals("--")) break;
            if (a.equals("--help") || a.equals("-h")) {
                c.help().print(out);
                return 0;
            }
        }
        try {
            return c.run(rest, out, err);
        } catch (UsageException e) {
            err.println("pgrepl " + args[0] + ": " + e.getMessage());
            err.println("Try 'pgrepl " + args[0] + " --help' for more information.");
            return 2;
        } catch (Exception e) {
            if (CliErrors.unwrap(e) instanceof io.pgrepl.client.config.ConnInfoException bad) {
                // A connection string that cannot be parsed is a bad argument, like a bad option.
                err.println("pgrepl " + args[0] + ": " + CliErrors.oneLine(bad));
                return 2;
            }
            err.println("pgrepl " + args[0] + ": " + CliErrors.describe(e));
            return 1;
        }
    }

    private static int unknown(String name, Map<String, Command> commands, PrintStream err) {
        String best = io.pgrepl.client.config.ClosestName.of(name, commands.keySet(), io.pgrepl.client.config.ClosestName.DEFAULT_LIMIT);
        err.println("pgrepl: unknown command '" + CliErrors.shown(name) + "'" + (best == null ? "" : " (did you mean '" + best + "'?)"));
        usage(commands, err);
        return 2;
    }

    static String version() {
        try (InputStream in = Main.class.getResourceAsStream("/pgrepl-version.properties")) {
            Properties p = new Properties();
            if (in != null) p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static void usage(Map<String, Command> commands, PrintStream s) {
        s.println("usage: pgrepl <command> [options]");
        s.println("       pgrepl help <command> | pgrepl <command> --help | pgrepl --version");
        s.println();
        s.println("commands:");
        commands.forEach((name, c) -> s.printf("  %-10s %s%n", name, c.summary()));
        s.println();
        s.println("Connection strings are libpq URIs (postgresql://user@host:port/db?sslmode=require) or");
        s.println("keyword/value strings (host=h dbname=d); what they leave out comes from PGHOST, PGPORT,");
        s.println("PGUSER, PGDATABASE, PGPASSWORD, PGSSLMODE, ... and ~/.pgpass, as with psql.");
        s.println();
        s.println("exit codes: 0 done, 1 failed (connection, server or output error), 2 bad arguments");
        s.println();
        s.println("example:");
        s.println("  pgrepl stream postgresql://repl@db/app --slot app_slot --publication app_pub --create-slot --if-not-exists");
    }
}
