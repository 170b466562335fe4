package io.pgrepl.client.snapshot.incremental;

/**
 * A transaction snapshot as {@code pg_current_snapshot()} (13+) or {@code txid_current_snapshot()}
 * prints it ({@code xmin:xmax:xip,...}), with the test a reader of rows read under it needs: were a
 * committed transaction's changes in what the snapshot read? The stream's 32-bit xids are placed in
 * the snapshot's epoch (every transaction a stream can show while a read matters is within 2^31 of
 * its {@code xmax}). Immutable; {@link #toString()} gives back the text it was parsed from
 * (in-progress ids sorted).
 */
public final class TransactionSnapshot {
    private final XidSnapshot snapshot;
    private final long xmax;

    private TransactionSnapshot(XidSnapshot snapshot) {
        this.snapshot = snapshot;
        String text = snapshot.toString();
        int from = text.indexOf(':') + 1;
        this.xmax = Long.parseLong(text.substring(from, text.indexOf(':', from)));
    }

    /**
     * Parses the text form.
     *
     * @param text {@code xmin:xmax:xip,...}
     * @return the snapshot
     * @throws IllegalArgumentException if the text is not a transaction snapshot
     */
    public static TransactionSnapshot parse(String text) {
        return new TransactionSnapshot(XidSnapshot.parse(text));
    }

    static TransactionSnapshot of(XidSnapshot s) {
        return new TransactionSnapshot(s);
    }

    /**
     * Whether a committed transaction's changes are in what this snapshot read.
     *
     * @param xid32 the transaction's top-level xid as the stream gives it (unsigned 32-bit)
     * @return true if this snapshot saw the transaction
     */
    public boolean sees(long xid32) {
        return snapshot.sees(xid32);
    }

    /**
     * The stream's 32-bit xid as a 64-bit, epoch-extended id near this snapshot.
     *
     * @param xid32 the xid as the stream gives it
     * @return the full transaction id
     */
    public long widen(long xid32) {
        return snapshot.widen(xid32);
    }

    /** {@return the oldest transaction id still running when the snapshot was taken (64-bit)} */
    public long xmin() {
        return snapshot.xmin();
    }

    /** {@return the first transaction id not yet assigned when the snapshot was taken (64-bit)} */
    public long xmax() {
        return xmax;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransactionSnapshot t && t.toString().equals(toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    @Override
    public String toString() {
        return snapshot.toString();
    }
}
