package io.pgrepl.benchmarks.connect;

import io.pgrepl.benchmarks.connect.IncrementalSideBySide.Leg;
import io.pgrepl.benchmarks.connect.IncrementalSideBySide.Outcome;
import java.util.List;
import java.util.Optional;

/**
 * {@link IncrementalSideBySide}'s output: every leg as measured, and the ratios the goals are
 * stated in, each taken within one round and one chunk size (legs that ran minutes apart on the same
 * box), never across rounds.
 */
final class IncrementalReport {
    private IncrementalReport() {}

    static String table(Outcome o) {
        StringBuilder b = new StringBuilder("PostgreSQL " + o.pgVersion() + "\n");
        for (String s : o.skipped()) b.append("skipped ").append(s).append('\n');
        b.append("| round | leg | chunk | workers | rows | s | rows/s | CPU ns/row: process | connector | own | task | producer |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Leg l : o.legs()) {
            b.append(String.format("| %d | %s | %s | %d | %,d | %.2f | %,.0f | %.0f | %s | %s | %s | %s |%n", l.round(), l.leg(),
                    l.chunk() == 0 ? "-" : Integer.toString(l.chunk()), l.workers(), l.records(), l.seconds(), l.rowsPerSecond(),
                    l.nanosPerRow("process"), ns(l, "connector"), ns(l, "own"), ns(l, "task"), ns(l, "producer")));
        }
        return b.toString();
    }

    /**
     * Per round and chunk size: pgrepl's engine (one worker) and connector against Debezium, and the
     * engine against the copy of the same round. CPU: the engine's whole process against Debezium's
     * connector threads (task + own + producer) and against its own threads alone (the snapshot and
     * streaming coordinator: reading, not Kafka); the connector's connector threads against Debezium's.
     */
    static String ratios(Outcome o) {
        StringBuilder b = new StringBuilder("| round | chunk | engine rows/s ÷ Debezium | engine CPU/row ÷ Debezium connector"
                + " | ÷ Debezium own | engine ÷ copy rows/s | connector rows/s ÷ Debezium | connector CPU/row ÷ Debezium connector"
                + " | process CPU/row ÷ Debezium's |\n|---|---|---|---|---|---|---|---|---|\n");
        List<Leg> legs = o.legs();
        legs.stream().filter(l -> l.leg().equals("debezium")).forEach(d -> {
            Optional<Leg> e = find(legs, d.round(), "engine", d.chunk());
            Optional<Leg> c = find(legs, d.round(), "connector", d.chunk());
            Optional<Leg> copy = legs.stream().filter(l -> l.leg().equals("copy") && l.round() == d.round()).findFirst();
            b.append(String.format("| %d | %d | %s | %s | %s | %s | %s | %s | %s |%n", d.round(), d.chunk(),
                    e.map(x -> x(x.rowsPerSecond() / d.rowsPerSecond())).orElse("-"),
                    e.map(x -> x(x.nanosPerRow("process") / d.nanosPerRow("connector"))).orElse("-"),
                    e.map(x -> x(x.nanosPerRow("process") / d.nanosPerRow("own"))).orElse("-"),
                    e.flatMap(x -> copy.map(y -> x(x.rowsPerSecond() / y.rowsPerSecond()))).orElse("-"),
                    c.map(x -> x(x.rowsPerSecond() / d.rowsPerSecond())).orElse("-"),
                    c.map(x -> x(x.nanosPerRow("connector") / d.nanosPerRow("connector"))).orElse("-"),
                    c.map(x -> x(x.nanosPerRow("process") / d.nanosPerRow("process"))).orElse("-")));
        });
        if (legs.stream().noneMatch(l -> l.leg().equals("debezium"))) {
            legs.stream().filter(l -> l.leg().equals("engine")).forEach(e -> legs.stream()
                    .filter(l -> l.leg().equals("copy") && l.round() == e.round()).findFirst()
                    .ifPresent(copy -> b.append(String.format("| %d | %d | - | - | - | %s | - | - | - |%n", e.round(), e.chunk(),
                            x(e.rowsPerSecond() / copy.rowsPerSecond())))));
        }
        return b.toString();
    }

    static String tsv(Outcome o) {
        StringBuilder b = new StringBuilder("# PostgreSQL " + o.pgVersion() + "\n");
        b.append("round\tleg\tchunk\tworkers\trows\trecords\tdistinct_ids\tseconds\trows_per_s\tcpu_process_s\tcpu_connector_s"
                + "\tcpu_own_s\tcpu_task_s\tcpu_producer_s\n");
        for (Leg l : o.legs()) {
            b.append(String.join("\t", Integer.toString(l.round()), l.leg(), Integer.toString(l.chunk()),
                    Integer.toString(l.workers()), Long.toString(l.rows()), Long.toString(l.records()),
                    Long.toString(l.distinctIds()), String.format("%.3f", l.seconds()), String.format("%.0f", l.rowsPerSecond()),
                    s(l, "process"), s(l, "connector"), s(l, "own"), s(l, "task"), s(l, "producer"))).append('\n');
        }
        return b.toString();
    }

    private static Optional<Leg> find(List<Leg> legs, int round, String leg, int chunk) {
        return legs.stream().filter(l -> l.round() == round && l.leg().equals(leg) && l.chunk() == chunk && l.workers() == 1)
                .findFirst();
    }

    private static String ns(Leg l, String kind) {
        double v = l.nanosPerRow(kind);
        return Double.isNaN(v) ? "-" : String.format("%.0f", v);
    }

    private static String s(Leg l, String kind) {
        Double v = l.cpu().get(kind);
        return v == null ? "" : String.format("%.3f", v);
    }

    private static String x(double ratio) {
        return String.format("%.2f×", ratio);
    }
}
