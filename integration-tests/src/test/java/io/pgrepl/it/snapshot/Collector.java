package io.pgrepl.it.snapshot;

import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.snapshot.SnapshotResult;
import io.pgrepl.client.snapshot.SnapshotTable;
import io.pgrepl.client.snapshot.SnapshotWarning;
import io.pgrepl.codec.pgoutput.TupleView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Keeps every read as {@code schema.table -> rows of "column=text"} strings, plus start/warnings/end. */
class Collector implements SnapshotHandler {
    final Map<String, List<List<String>>> rows = new ConcurrentHashMap<>();
    final List<SnapshotWarning> warnings = Collections.synchronizedList(new ArrayList<>());
    volatile List<SnapshotTable> tables;
    volatile SnapshotResult end;

    @Override
    public void onStart(long consistentPoint, List<SnapshotTable> t) {
        tables = t;
    }

    @Override
    public void onRead(TupleView row, long consistentPoint) {
        List<String> r = new ArrayList<>();
        for (int i = 0; i < row.columnCount(); i++) {
            r.add(row.column(i).name() + "=" + (row.isNull(i) ? "NULL" : row.isBinary(i) ? SnapshotSupport.hex(row.bytes(i)) : row.text(i)));
        }
        rows.computeIfAbsent(row.relation().schema() + "." + row.relation().name(), k -> Collections.synchronizedList(new ArrayList<>())).add(r);
    }

    @Override
    public void onWarning(SnapshotWarning w) {
        warnings.add(w);
    }

    @Override
    public void onEnd(SnapshotResult r) {
        end = r;
    }

    /** The rows of a table as sorted strings. */
    List<String> sorted(String table) {
        return rows.getOrDefault(table, List.of()).stream().map(Object::toString).sorted().toList();
    }
}
