package io.pgrepl.codec.pgoutput;

import io.pgrepl.codec.pgoutput.record.*;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random but protocol-consistent pgoutput message sequences: Relation before the changes that use
 * it, tuples as wide as their relation, key tuples with only key columns present, xid prefixes only
 * inside Stream Start … Stream Stop.
 */
final class RandomStreams {
    private static final int[] TYPE_OIDS = {16, 20, 23, 25, 1700, 17, 1184, 2950, 3802, 16500};
    private static final char[] IDENTITIES = {'d', 'n', 'f', 'i'};

    private final Random r;

    RandomStreams(Random r) {
        this.r = r;
    }

    List<PgOutputRecord> stream() {
        List<PgOutputRecord> out = new ArrayList<>();
        int segments = 1 + r.nextInt(6);
        for (int s = 0; s < segments; s++) {
            switch (r.nextInt(3)) {
                case 0 -> out.add(standalone());
                case 1 -> relationGroup(out, 0);
                default -> {
                    long xid = xid();
                    out.add(new StreamStart(xid, r.nextInt(2)));
                    if (r.nextBoolean()) out.add(new Type(xid, r.nextInt(), str(), str()));
                    relationGroup(out, xid);
                    out.add(new StreamStop());
                }
            }
        }
        return out;
    }

    private long xid() {
        return 1 + (r.nextLong() & 0xFFFF_FFFEL);
    }

    private long lsn() {
        return r.nextBoolean() ? r.nextLong() : r.nextInt(1 << 30);
    }

    private int flags() {
        return r.nextInt(8) == 0 ? r.nextInt(256) : 0;
    }

    String str() {
        int n = r.nextInt(12);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int c = r.nextInt(10) == 0 ? 0x80 + r.nextInt(0x700) : 0x20 + r.nextInt(0x5f);
            sb.appendCodePoint(c);
        }
        return sb.toString();
    }

    private byte[] bytes() {
        byte[] b = new byte[r.nextInt(20)];
        r.nextBytes(b);
        return b;
    }

    private PgOutputRecord standalone() {
        return switch (r.nextInt(14)) {
            case 0 -> new Begin(lsn(), r.nextLong(), xid());
            case 1 -> new Commit(flags(), lsn(), lsn(), r.nextLong());
            case 2 -> new Origin(lsn(), str());
            case 3 -> new Type(0, r.nextInt(), str(), str());
            case 4 -> new StreamCommit(xid(), flags(), lsn(), lsn(), r.nextLong());
            case 5 -> r.nextBoolean() ? new StreamAbort(xid(), xid(), false, 0, 0)
                    : new StreamAbort(xid(), xid(), true, lsn(), r.nextLong());
            case 6 -> new BeginPrepare(lsn(), lsn(), r.nextLong(), xid(), str());
            case 7 -> new Prepare(flags(), lsn(), lsn(), r.nextLong(), xid(), str());
            case 8 -> new StreamPrepare(flags(), lsn(), lsn(), r.nextLong(), xid(), str());
            case 9 -> new CommitPrepared(flags(), lsn(), lsn(), r.nextLong(), xid(), str());
            case 10 -> new RollbackPrepared(flags(), lsn(), lsn(), r.nextLong(), r.nextLong(), xid(), str());
            case 11 -> new Message(0, r.nextInt(2), lsn(), str(), bytes());
            case 12 -> {
                List<Integer> oids = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) oids.add(r.nextInt());
                yield new Truncate(0, r.nextInt(4), oids);
            }
            default -> new Relation(0, r.nextInt(), str(), str(), IDENTITIES[r.nextInt(4)], List.of());
        };
    }

    private void relationGroup(List<PgOutputRecord> out, long xid) {
        int oid = r.nextInt();
        int n = r.nextInt(7);
        List<ColumnInfo> cols = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cols.add(new ColumnInfo(r.nextInt(3) == 0 ? 1 : 0, "c" + i + str(), TYPE_OIDS[r.nextInt(TYPE_OIDS.length)],
                    r.nextInt(4) == 0 ? r.nextInt(100) : -1));
        }
        Relation rel = new Relation(xid, oid, str(), str(), IDENTITIES[r.nextInt(4)], cols);
        out.add(rel);
        for (int k = r.nextInt(5); k > 0; k--) {
            out.add(switch (r.nextInt(5)) {
                case 0 -> new Insert(xid, oid, tuple(cols, false));
                case 1 -> new Update(xid, oid, (char) 0, null, tuple(cols, false));
                case 2 -> {
                    boolean key = r.nextBoolean();
                    yield new Update(xid, oid, key ? 'K' : 'O', tuple(cols, key), tuple(cols, false));
                }
                case 3 -> {
                    boolean key = r.nextBoolean();
                    yield new Delete(xid, oid, key ? 'K' : 'O', tuple(cols, key));
                }
                default -> r.nextBoolean() ? new Message(xid, r.nextInt(2), lsn(), str(), bytes())
                        : new Truncate(xid, r.nextInt(4), List.of(oid));
            });
        }
    }

    private Tuple tuple(List<ColumnInfo> cols, boolean keyOnly) {
        List<ColumnValue> values = new ArrayList<>();
        for (ColumnInfo c : cols) {
            if (keyOnly && !c.isKey()) {
                values.add(new ColumnValue(c.name(), c.typeOid(), ColumnKind.ABSENT, null));
                continue;
            }
            values.add(switch (r.nextInt(4)) {
                case 0 -> new ColumnValue(c.name(), c.typeOid(), ColumnKind.NULL, null);
                case 1 -> new ColumnValue(c.name(), c.typeOid(), ColumnKind.UNCHANGED_TOAST, null);
                case 2 -> new ColumnValue(c.name(), c.typeOid(), ColumnKind.TEXT, str().getBytes(StandardCharsets.UTF_8));
                default -> new ColumnValue(c.name(), c.typeOid(), ColumnKind.BINARY, bytes());
            });
        }
        return new Tuple(values);
    }
}
