package io.pgrepl.client.snapshot.incremental;

/**
 * One chunk on its way from the read to the emission (event loop only). Emitted once the rows are
 * in ({@link #read}) and the stream has passed the high mark ({@link #passed}), at a transaction
 * boundary.
 */
final class Chunk {
    final String token;
    final TableRun table;
    final TableRun.Cursor cursor;
    /** Every transaction that committed at or before this was delivered before the chunk started. */
    final long lsnFloor;
    /** A snapshot read before this chunk started (its xmin is at most this chunk's), or null. */
    final XidSnapshot safeSnapshot;
    ChunkRead read;
    /** The low mark's commit LSN; in read-only mode the position read with the snapshot. -1: not yet seen. */
    long lowLsn = -1;
    /** Read-only mode: the position the stream must reach. */
    long markLsn;
    /** The high mark arrived inside the transaction now open. */
    boolean highInTx;
    boolean passed;
    /** Where the reads sit in the stream. */
    long position;
    boolean abandoned;
    /** Started while an older chunk of the worker was still open (its high mark not passed yet). */
    boolean readAhead;
    /** The table's shape the stream had delivered when the chunk started (see {@link ReadShapes}), or null. */
    io.pgrepl.codec.pgoutput.RelationInfo streamShapeAtStart;

    Chunk(String token, TableRun table, TableRun.Cursor cursor, long lsnFloor, XidSnapshot safeSnapshot) {
        this.token = token;
        this.table = table;
        this.cursor = cursor;
        this.lsnFloor = lsnFloor;
        this.safeSnapshot = safeSnapshot;
    }

    void release() {
        if (read != null) {
            read.rows().release();
            read = null;
        }
    }
}
