package io.pgrepl.cli;

import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The fixed part of a snapshot {@code read} line per relation (schema, table, column types) and its
 * key column names, rendered once per relation and reused for every row, by the exported-snapshot
 * and the incremental-snapshot sources alike. Types are named as the stream's lines name them
 * ({@link StreamRun#typeName}). One thread only.
 */
final class ReadHeads {
    record Head(byte[] head, byte[][] keys) {}

    private final Map<RelationInfo, Head> heads = new IdentityHashMap<>();
    private final IntFunction<String> typeName;

    ReadHeads(IntFunction<String> typeName) {
        this.typeName = typeName;
    }

    Head of(RelationInfo r) {
        Head h = heads.get(r);
        if (h == null) {
            JsonBytes b = new JsonBytes();
            TxJson.relationHead(b, r.schema(), r.name(), r.columns(), typeName);
            h = new Head(b.take(), TxJson.keys(r.columns()));
            heads.put(r, h);
        }
        return h;
    }
}
