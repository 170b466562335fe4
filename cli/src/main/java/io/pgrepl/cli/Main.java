package io.pgrepl.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/** Entry point of the {@code pgrepl} command: picks a sub-command and maps failures to exit codes. */
public final class Main {
    /** A sub-command: gets its own arguments, returns the process exit code. */
    interface Command {
        int run(String[] args, PrintStream out, PrintStream err) throws Exception;

        String summary();
    }

    private static Map<String, Command> commands() {
        Map<String, Command> m = new TreeMap<>();
        m.put("decode", new DecodeCommand());
        m.put("demo", new DemoCommand());
        m.put("identify", new IdentifyCommand());
        m.put("slot", new SlotCommand());
        m.put("stream", new StreamCommand());
        return m;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, Command> commands = commands();
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            usage(commands, args.length == 0 ? err : out);
            return args.length == 0 ? 2 : 0;
        }
        Command c = commands.get(args[0]);
        if (c == null) {
            err.println("pgrepl: unknown command '" + CliErrors.shown(args[0]) + "'");
            usage(commands, err);
            return 2;
        }
        try {
            return c.run(Arrays.copyOfRange(args, 1, args.length), out, err);
        } catch (UsageException e) {
            err.println("pgrepl " + args[0] + ": " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("pgrepl " + args[0] + ": " + CliErrors.oneLine(e));
            return 1;
        }
    }

    private static void usage(Map<String, Command> commands, PrintStream s) {
        s.println("usage: pgrepl <command> [options]");
        commands.forEach((name, c) -> s.printf("  %-10s %s%n", name, c.summary()));
    }
}
