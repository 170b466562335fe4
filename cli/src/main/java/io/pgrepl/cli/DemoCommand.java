package io.pgrepl.cli;

import java.io.PrintStream;

/** {@code pgrepl demo}: the README's main job. Grows into the full streaming demo. */
final class DemoCommand implements Main.Command {
    @Override
    public String summary() {
        return "start an embedded server, make changes and stream them as JSON lines";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        err.println("pgrepl demo: not built yet");
        return 1;
    }
}
