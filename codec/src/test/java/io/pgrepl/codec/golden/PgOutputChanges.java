package io.pgrepl.codec.golden;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.*;
import io.pgrepl.codec.pgoutput.record.*;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** Decodes a golden capture into {@link Changes} lines, through the views or through the records. */
final class PgOutputChanges {
    private PgOutputChanges() {}

    /** One message per line: {@code LSN TAB hex}. */
    static List<ByteBuf> messages(List<String> lines) {
        List<ByteBuf> l = new ArrayList<>();
        for (String line : lines) {
            if (line.isEmpty()) continue;
            l.add(Unpooled.wrappedBuffer(HexFormat.of().parseHex(line.substring(line.indexOf('\t') + 1))));
        }
        return l;
    }

    // ---- the flyweight path

    static List<String> viaViews(List<ByteBuf> messages) {
        CommittedChanges cc = new CommittedChanges();
        PgOutputDecoder decoder = new PgOutputDecoder();
        PgOutputHandler h = new PgOutputHandler() {
            @Override
            public void onBegin(BeginMessage m) {
                cc.begin();
            }

            @Override
            public void onCommit(CommitMessage m) {
                cc.commit();
            }

            @Override
            public void onInsert(InsertMessage m) {
                cc.change(m.xid(), Changes.change("INSERT", name(m.relation()), null, cols(m.newTuple(), decoder)));
            }

            @Override
            public void onUpdate(UpdateMessage m) {
                List<Changes.Col> old = m.hasOldTuple() ? cols(m.oldTuple(), decoder) : null;
                cc.change(m.xid(), Changes.change("UPDATE", name(m.relation()), old, cols(m.newTuple(), decoder)));
            }

            @Override
            public void onDelete(DeleteMessage m) {
                cc.change(m.xid(), Changes.change("DELETE", name(m.relation()), cols(m.oldTuple(), decoder), null));
            }

            @Override
            public void onTruncate(TruncateMessage m) {
                List<String> tables = new ArrayList<>();
                for (int i = 0; i < m.relationCount(); i++) tables.add(name(m.relation(i)));
                cc.change(m.xid(), Changes.truncate(tables, m.cascade(), m.restartIdentity()));
            }

            @Override
            public void onMessage(LogicalMessage m) {
                cc.change(m.xid(), Changes.message(m.transactional(), m.prefix(),
                        ByteBufUtil.getBytes(m.buffer(), m.contentIndex(), m.contentLength())));
            }

            @Override
            public void onStreamStart(StreamStartMessage m) {
                cc.streamStart(m.xid());
            }

            @Override
            public void onStreamStop(StreamStopMessage m) {
                cc.streamStop();
            }

            @Override
            public void onStreamCommit(StreamCommitMessage m) {
                cc.streamCommit(m.xid());
            }

            @Override
            public void onStreamAbort(StreamAbortMessage m) {
                cc.streamAbort(m.xid(), m.subXid());
            }

            @Override
            public void onBeginPrepare(BeginPrepareMessage m) {
                cc.beginPrepare();
            }

            @Override
            public void onPrepare(PrepareMessage m) {
                cc.prepare(m.gid());
            }

            @Override
            public void onStreamPrepare(PrepareMessage m) {
                cc.streamPrepare(m.xid(), m.gid());
            }

            @Override
            public void onCommitPrepared(CommitPreparedMessage m) {
                cc.commitPrepared(m.gid());
            }

            @Override
            public void onRollbackPrepared(RollbackPreparedMessage m) {
                cc.rollbackPrepared(m.gid());
            }
        };
        for (ByteBuf b : messages) decoder.decode(b, h);
        return cc.result();
    }

    private static String name(RelationInfo r) {
        return r.schema() + "." + r.name();
    }

    private static List<Changes.Col> cols(TupleView t, PgOutputDecoder decoder) {
        List<Changes.Col> cols = new ArrayList<>();
        for (int i = 0; i < t.columnCount(); i++) {
            ColumnInfo c = t.column(i);
            ColumnKind k = t.kind(i);
            if (k == ColumnKind.ABSENT) continue;
            String type = typeName(c.typeOid(), oid -> {
                TypeInfo ti = decoder.state().type(oid);
                return ti == null ? null : ti.name();
            });
            cols.add(col(c.name(), c.typeOid(), type, k, k.hasValue() ? t.bytes(i) : null));
        }
        return cols;
    }

    // ---- the record path

    static List<String> viaRecords(List<ByteBuf> messages) {
        CommittedChanges cc = new CommittedChanges();
        PgOutputDecoder decoder = new PgOutputDecoder();
        Map<Integer, Relation> relations = new HashMap<>();
        Map<Integer, String> types = new HashMap<>();
        List<PgOutputRecord> records = new ArrayList<>();
        PgOutputHandler collector = PgOutputRecords.collector(records::add);
        for (ByteBuf b : messages) decoder.decode(b, collector);
        for (PgOutputRecord r : records) {
            if (r instanceof Begin) cc.begin();
            else if (r instanceof Commit) cc.commit();
            else if (r instanceof Relation x) relations.put(x.oid(), x);
            else if (r instanceof Type x) types.put(x.oid(), x.name());
            else if (r instanceof Insert x) {
                cc.change(x.xid(), Changes.change("INSERT", name(relations.get(x.relationOid())), null,
                        cols(x.newTuple(), types)));
            } else if (r instanceof Update x) {
                cc.change(x.xid(), Changes.change("UPDATE", name(relations.get(x.relationOid())),
                        x.oldTuple() == null ? null : cols(x.oldTuple(), types), cols(x.newTuple(), types)));
            } else if (r instanceof Delete x) {
                cc.change(x.xid(), Changes.change("DELETE", name(relations.get(x.relationOid())),
                        cols(x.oldTuple(), types), null));
            } else if (r instanceof Truncate x) {
                List<String> tables = new ArrayList<>();
                for (int oid : x.relationOids()) tables.add(name(relations.get(oid)));
                cc.change(x.xid(), Changes.truncate(tables, (x.options() & 1) != 0, (x.options() & 2) != 0));
            } else if (r instanceof Message x) {
                cc.change(x.xid(), Changes.message((x.flags() & 1) != 0, x.prefix(), x.content()));
            } else if (r instanceof StreamStart x) cc.streamStart(x.xid());
            else if (r instanceof StreamStop) cc.streamStop();
            else if (r instanceof StreamCommit x) cc.streamCommit(x.xid());
            else if (r instanceof StreamAbort x) cc.streamAbort(x.xid(), x.subXid());
            else if (r instanceof BeginPrepare) cc.beginPrepare();
            else if (r instanceof Prepare x) cc.prepare(x.gid());
            else if (r instanceof StreamPrepare x) cc.streamPrepare(x.xid(), x.gid());
            else if (r instanceof CommitPrepared x) cc.commitPrepared(x.gid());
            else if (r instanceof RollbackPrepared x) cc.rollbackPrepared(x.gid());
            else if (!(r instanceof Origin)) throw new AssertionError("unexpected record " + r);
        }
        return cc.result();
    }

    private static String name(Relation r) {
        return (r.namespace().isEmpty() ? "pg_catalog" : r.namespace()) + "." + r.name();
    }

    private static List<Changes.Col> cols(Tuple t, Map<Integer, String> types) {
        List<Changes.Col> cols = new ArrayList<>();
        for (ColumnValue v : t.columns()) {
            if (v.kind() == ColumnKind.ABSENT) continue;
            cols.add(col(v.name(), v.typeOid(), typeName(v.typeOid(), types::get), v.kind(), v.bytes()));
        }
        return cols;
    }

    // ---- values in test_decoding's terms

    /** test_decoding prints format_type names; built-in OIDs are fixed, others come from Type messages. */
    private static String typeName(int oid, java.util.function.IntFunction<String> userTypes) {
        return switch (oid) {
            case 16 -> "boolean";
            case 20 -> "bigint";
            case 21 -> "smallint";
            case 23 -> "integer";
            case 25 -> "text";
            case 1043 -> "character varying";
            default -> {
                String n = userTypes.apply(oid);
                if (n == null) throw new AssertionError("no name for type OID " + oid);
                yield n;
            }
        };
    }

    private static Changes.Col col(String name, int oid, String type, ColumnKind kind, byte[] bytes) {
        return switch (kind) {
            case NULL -> Changes.Col.nul(name, type);
            case UNCHANGED_TOAST -> Changes.Col.toast(name, type);
            case TEXT -> Changes.Col.value(name, type, oid == 16 ? textBool(bytes) : utf8(bytes));
            case BINARY -> Changes.Col.value(name, type, binary(oid, bytes));
            case ABSENT -> throw new AssertionError("absent column");
        };
    }

    private static String textBool(byte[] b) {
        String s = utf8(b);
        return switch (s) {
            case "t" -> "true";
            case "f" -> "false";
            default -> throw new AssertionError("boolean text " + s);
        };
    }

    /** Binary send formats of the workload's types, read independently of the decoder's PgValues. */
    private static String binary(int oid, byte[] b) {
        ByteBuffer bb = ByteBuffer.wrap(b);
        return switch (oid) {
            case 16 -> {
                if (b.length != 1) throw new AssertionError("bool of " + b.length + " bytes");
                yield b[0] != 0 ? "true" : "false";
            }
            case 21 -> Short.toString(bb.getShort());
            case 23 -> Integer.toString(bb.getInt());
            case 20 -> Long.toString(bb.getLong());
            // text, varchar and enums send their characters.
            default -> utf8(b);
        };
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
