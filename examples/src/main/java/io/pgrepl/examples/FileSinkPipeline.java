package io.pgrepl.examples;

import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.tx.AssemblerOptions;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Example 3, an ingest pipeline on the blocking face: whole transactions (assembled, spilled to
 * disk beyond a 1 MiB budget) are batched into a file sink; only after {@code force(true)} has
 * made a batch durable is its last transaction acknowledged, so a crash at any point loses nothing
 * (the slot resends whatever was not acknowledged).
 *
 * <p>{@code --out FILE} names the sink and keeps it; without it the sink is a temporary file that
 * is removed at the end (the last line says so).
 */
public final class FileSinkPipeline {
    public static void main(String[] args) throws Exception {
        int transactions = 30;
        int ordersPerTx = 100;
        Path out = outFile(args);
        Path sink = out != null ? out : Files.createTempFile("pgrepl-sink-", ".txt");
        if (out != null) Files.deleteIfExists(out); // a fresh sink per run
        try (ExampleDatabase db = ExampleDatabase.open(args);
             FileChannel file = FileChannel.open(sink, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.APPEND)) {
            Thread workload = db.workloadInBackground(transactions, ordersPerTx);
            FlowOptions flow = FlowOptions.defaults()
                    .withAssembler(AssemblerOptions.defaults().withMemoryBudgetBytes(1 << 20));
            int received = 0;
            int batches = 0;
            try (BlockingChanges<TxEvent> it = BlockingChanges.openTransactions(db.replication, db.options().build(), flow, 64)) {
                List<Transaction> batch = new ArrayList<>();
                while (received < transactions) {
                    // gather up to 8 transactions, or whatever arrived within 200 ms
                    TxEvent e = it.poll(Duration.ofMillis(200));
                    if (e instanceof Transaction t) {
                        batch.add(t);
                        received++;
                    }
                    if (!batch.isEmpty() && (batch.size() >= 8 || e == null || received == transactions)) {
                        write(file, batch);
                        file.force(true); // durable first ...
                        batch.get(batch.size() - 1).acknowledge(); // ... then confirmed (covers the earlier ones)
                        for (Transaction t : batch) t.close(); // spill files, if any
                        System.out.printf("batch %d: %d transactions durable, acknowledged %s%n", ++batches,
                                batch.size(), Lsn.format(batch.get(batch.size() - 1).endLsn()));
                        batch.clear();
                    }
                }
            }
            workload.join();
            System.out.printf("%d transactions in %d batches, %d lines in %s%n", received, batches,
                    Files.readAllLines(sink).size(), sink);
        } finally {
            if (out == null) {
                Files.deleteIfExists(sink);
                System.out.println("removed the temporary sink " + sink + " (--out FILE keeps the sink)");
            }
        }
    }

    /** {@code --out FILE}: write the sink there and keep it; otherwise a temporary file, removed at the end. */
    private static Path outFile(String[] args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--out")) return Path.of(args[i + 1]);
        }
        return null;
    }

    private static void write(FileChannel file, List<Transaction> batch) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        for (Transaction t : batch) {
            for (PgOutputRecord r : t.changes()) {
                if (!(r instanceof Insert i)) continue;
                Relation rel = t.relation(i.relationOid());
                sb.append(Lsn.format(t.endLsn())).append('\t').append(rel.name());
                for (ColumnValue c : i.newTuple().columns()) sb.append('\t').append(c.name()).append('=').append(c.text());
                sb.append('\n');
            }
        }
        ByteBuffer buf = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) file.write(buf);
    }
}
