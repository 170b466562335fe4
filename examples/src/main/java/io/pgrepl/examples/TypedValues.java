package io.pgrepl.examples;

import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.value.PgType;

import java.time.Duration;
import java.util.HexFormat;

/**
 * Example 4, typed column values: one row with a column per common type goes through the slot in
 * text format (and again with {@code --binary}), and each value is printed with the Java type
 * {@link ColumnValue#decode()} gives it: int2 to Short, numeric to BigDecimal, timestamptz to
 * Instant, jsonb to String, int[] to List, and so on (see {@code PgValues.decode}). Both formats
 * decode to equal Java values.
 */
public final class TypedValues {
    public static void main(String[] args) throws Exception {
        boolean binary = java.util.Arrays.asList(args).contains("--binary");
        try (ExampleDatabase db = ExampleDatabase.open(args)) {
            db.sql.simpleQuery("INSERT INTO ex_types VALUES (1, -32768, 9007199254740993, 0.1, 12345.678900, true,"
                    + " 'héllo', '\\xdeadbeef', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-02-29', '23:59:59.999999',"
                    + " '2024-02-29 12:00:00', '2024-02-29 12:00:00+01', '1 year 2 mons 3 days 04:05:06.5',"
                    + " '{\"a\": [1, 2]}', '{1,NULL,3}', '{{a,b},{c,d}}', '16/B374D848')").toCompletableFuture().join();
            try (BlockingChanges<TxEvent> it = BlockingChanges.openTransactions(db.replication,
                    db.options().binary(binary).build(), FlowOptions.defaults(), 16)) {
                TxEvent e = it.poll(Duration.ofSeconds(30));
                if (!(e instanceof Transaction tx)) throw new IllegalStateException("no transaction arrived: " + e);
                System.out.println((binary ? "binary" : "text") + " format, commit " + io.pgrepl.codec.Lsn.format(tx.endLsn()));
                for (PgOutputRecord r : tx.changes()) {
                    if (!(r instanceof Insert insert)) continue;
                    for (ColumnValue c : insert.newTuple().columns()) {
                        Object v = c.decode();
                        System.out.printf("%-9s %-12s -> %-14s %s%n", c.name(), PgType.name(c.typeOid()),
                                javaType(v), show(v));
                    }
                }
                tx.acknowledge();
            }
        }
    }

    private static String javaType(Object v) {
        if (v == null) return "null";
        return v instanceof java.util.List ? "List" : v.getClass().getSimpleName(); // lists are unmodifiable List.of
    }

    private static String show(Object v) {
        return v instanceof byte[] b ? "0x" + HexFormat.of().formatHex(b) : String.valueOf(v);
    }
}
