package io.pgrepl.client.tx;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.Origin;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Truncate;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Type;
import io.pgrepl.codec.pgoutput.record.Update;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The spill-file format: per record Int32 length, then the type byte and the fields. Only the
 * records that can sit inside a transaction are written. The format is private to one process run;
 * files never outlive the assembler.
 */
final class RecordSerde {
    private RecordSerde() {}

    /** Rough heap cost of a record, for the memory budget (object headers + payload bytes). */
    static long estimateSize(PgOutputRecord r) {
        if (r instanceof Insert i) return 48 + tupleSize(i.newTuple());
        if (r instanceof Update u) return 56 + tupleSize(u.oldTuple()) + tupleSize(u.newTuple());
        if (r instanceof Delete d) return 48 + tupleSize(d.oldTuple());
        if (r instanceof Message m) return 64 + m.content().length + m.prefix().length();
        if (r instanceof Relation rel) return 64 + 48L * rel.columns().size();
        if (r instanceof Truncate t) return 48 + 16L * t.relationOids().size();
        return 48;
    }

    private static long tupleSize(Tuple t) {
        if (t == null) return 0;
        long n = 32;
        for (int i = 0; i < t.size(); i++) n += 40 + Math.max(0, t.valueLength(i));
        return n;
    }

    static void write(PgOutputRecord r, DataOutput out) throws IOException {
        out.writeByte(r.type());
        if (r instanceof Insert i) {
            out.writeLong(i.xid());
            out.writeInt(i.relationOid());
            writeTuple(i.newTuple(), out);
        } else if (r instanceof Update u) {
            out.writeLong(u.xid());
            out.writeInt(u.relationOid());
            out.writeChar(u.oldTupleKind());
            out.writeBoolean(u.oldTuple() != null);
            if (u.oldTuple() != null) writeTuple(u.oldTuple(), out);
            writeTuple(u.newTuple(), out);
        } else if (r instanceof Delete d) {
            out.writeLong(d.xid());
            out.writeInt(d.relationOid());
            out.writeChar(d.oldTupleKind());
            writeTuple(d.oldTuple(), out);
        } else if (r instanceof Truncate t) {
            out.writeLong(t.xid());
            out.writeInt(t.options());
            out.writeInt(t.relationOids().size());
            for (int oid : t.relationOids()) out.writeInt(oid);
        } else if (r instanceof Message m) {
            out.writeLong(m.xid());
            out.writeInt(m.flags());
            out.writeLong(m.messageLsn());
            writeString(m.prefix(), out);
            writeBytes(m.content(), out);
        } else if (r instanceof Relation rel) {
            out.writeLong(rel.xid());
            out.writeInt(rel.oid());
            writeString(rel.namespace(), out);
            writeString(rel.name(), out);
            out.writeChar(rel.replicaIdentity());
            out.writeInt(rel.columns().size());
            for (ColumnInfo c : rel.columns()) {
                out.writeInt(c.flags());
                writeString(c.name(), out);
                out.writeInt(c.typeOid());
                out.writeInt(c.typmod());
            }
        } else if (r instanceof Type t) {
            out.writeLong(t.xid());
            out.writeInt(t.oid());
            writeString(t.namespace(), out);
            writeString(t.name(), out);
        } else if (r instanceof Origin o) {
            out.writeLong(o.originLsn());
            writeString(o.name(), out);
        } else {
            throw new IllegalArgumentException("not a change record: " + r.getClass().getSimpleName());
        }
    }

    static PgOutputRecord read(DataInput in) throws IOException {
        byte type = in.readByte();
        switch (type) {
            case 'I':
                return new Insert(in.readLong(), in.readInt(), readTuple(in));
            case 'U': {
                long xid = in.readLong();
                int rel = in.readInt();
                char kind = in.readChar();
                Tuple old = in.readBoolean() ? readTuple(in) : null;
                return new Update(xid, rel, kind, old, readTuple(in));
            }
            case 'D':
                return new Delete(in.readLong(), in.readInt(), in.readChar(), readTuple(in));
            case 'T': {
                long xid = in.readLong();
                int options = in.readInt();
                int n = in.readInt();
                List<Integer> oids = new ArrayList<>(n);
                for (int i = 0; i < n; i++) oids.add(in.readInt());
                return new Truncate(xid, options, List.copyOf(oids));
            }
            case 'M':
                return new Message(in.readLong(), in.readInt(), in.readLong(), readString(in), readBytes(in));
            case 'R': {
                long xid = in.readLong();
                int oid = in.readInt();
                String ns = readString(in);
                String name = readString(in);
                char ident = in.readChar();
                int n = in.readInt();
                List<ColumnInfo> cols = new ArrayList<>(n);
                for (int i = 0; i < n; i++) cols.add(new ColumnInfo(in.readInt(), readString(in), in.readInt(), in.readInt()));
                return new Relation(xid, oid, ns, name, ident, List.copyOf(cols));
            }
            case 'Y':
                return new Type(in.readLong(), in.readInt(), readString(in), readString(in));
            case 'O':
                return new Origin(in.readLong(), readString(in));
            default:
                throw new IOException("corrupt spill file: record type " + type);
        }
    }

    private static final ColumnKind[] KINDS = ColumnKind.values();

    private static void writeTuple(Tuple t, DataOutput out) throws IOException {
        out.writeInt(t.size());
        for (int i = 0; i < t.size(); i++) {
            writeString(t.name(i), out);
            out.writeInt(t.typeOid(i));
            out.writeByte(t.kind(i).ordinal());
            if (t.hasValue(i)) {
                // From the tuple's array in place, as writeBytes lays it out.
                out.writeInt(t.valueLength(i));
                out.write(t.array(), t.valueOffset(i), t.valueLength(i));
            }
        }
    }

    private static Tuple readTuple(DataInput in) throws IOException {
        int n = in.readInt();
        List<ColumnValue> cols = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String name = readString(in);
            int typeOid = in.readInt();
            ColumnKind kind = KINDS[in.readByte()];
            cols.add(new ColumnValue(name, typeOid, kind, kind.hasValue() ? readBytes(in) : null));
        }
        return new Tuple(cols);
    }

    private static void writeString(String s, DataOutput out) throws IOException {
        writeBytes(s.getBytes(StandardCharsets.UTF_8), out);
    }

    private static String readString(DataInput in) throws IOException {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    private static void writeBytes(byte[] b, DataOutput out) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInput in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
    }
}
