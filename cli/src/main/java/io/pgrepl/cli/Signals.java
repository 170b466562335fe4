package io.pgrepl.cli;

import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;

/**
 * SIGINT and SIGTERM for {@code pgrepl stream}: the first asks for a clean stop (finish the
 * current output, acknowledge it, CopyDone, exit 0); a second exits at once. Uses
 * {@code sun.misc.Signal} (jdk.unsupported, present in every JDK 17+): a shutdown hook cannot
 * keep the JVM's exit status at 0, and cannot tell a first signal from a second.
 */
final class Signals {
    private Signals() {}

    /** Installed handlers; {@link #stopping()} makes any further signal exit at once. */
    static final class Registration {
        private final AtomicInteger received = new AtomicInteger();

        void stopping() {
            received.set(1);
        }
    }

    /** {@code say}: where the "stopping" line goes (the stream's stderr, which erases its progress line first). */
    static Registration install(java.util.function.Consumer<String> say, Runnable firstSignal) {
        Registration r = new Registration();
        for (String name : new String[] {"INT", "TERM"}) {
            int code = name.equals("INT") ? 130 : 143;
            Signal.handle(new Signal(name), s -> {
                if (r.received.getAndIncrement() == 0) {
                    say.accept("pgrepl: stopping (signal " + name + "); again to exit at once");
                    firstSignal.run();
                } else {
                    Runtime.getRuntime().halt(code);
                }
            });
        }
        return r;
    }
}
