package io.pgrepl.kafka.connect;

import io.pgrepl.kafka.connect.offsets.Position;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Records of one transaction (or standalone message) in stream order, at most max.batch.size;
 * {@code open}: its first chunk, {@code seal}: its last; {@code through}: the last position
 * it covers (skipped records included); or the builder's fatal {@code failure}. {@code reads}: an
 * incremental snapshot's reads and notifications (outside any transaction); {@code state}: the
 * incremental state as of it, or null.
 */
record Chunk(long lsn, boolean open, boolean seal, boolean commit, List<SourceRecord> records,
             Position through, RuntimeException failure, boolean reads, String state) {
    Chunk(long lsn, boolean open, boolean seal, boolean commit, List<SourceRecord> records, Position through,
          RuntimeException failure) {
        this(lsn, open, seal, commit, records, through, failure, false, null);
    }
}
