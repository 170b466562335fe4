package io.pgrepl.cli;

import io.pgrepl.codec.value.PgType;
import java.util.Map;

/**
 * Names of built-in types by OID (pg_type.dat: these OIDs are fixed across releases). pgoutput
 * sends a Type message only for user-defined types, so built-in names come from here.
 */
final class TypeNames {
    private TypeNames() {}

    private static final Map<Integer, String> OTHERS = Map.ofEntries(
            Map.entry(142, "xml"), Map.entry(143, "xml[]"), Map.entry(600, "point"), Map.entry(601, "lseg"),
            Map.entry(602, "path"), Map.entry(603, "box"), Map.entry(604, "polygon"), Map.entry(628, "line"),
            Map.entry(650, "cidr"), Map.entry(651, "cidr[]"), Map.entry(718, "circle"), Map.entry(774, "macaddr8"),
            Map.entry(790, "money"), Map.entry(829, "macaddr"), Map.entry(869, "inet"), Map.entry(1041, "inet[]"),
            Map.entry(1560, "bit"), Map.entry(1562, "varbit"), Map.entry(3614, "tsvector"), Map.entry(3615, "tsquery"),
            Map.entry(3904, "int4range"), Map.entry(3906, "numrange"), Map.entry(3908, "tsrange"),
            Map.entry(3910, "tstzrange"), Map.entry(3912, "daterange"), Map.entry(3926, "int8range"),
            Map.entry(4451, "int4multirange"), Map.entry(4536, "nummultirange"), Map.entry(4532, "tsmultirange"),
            Map.entry(4533, "tstzmultirange"), Map.entry(4535, "datemultirange"), Map.entry(4534, "int8multirange"),
            Map.entry(4089, "regnamespace"), Map.entry(2205, "regclass"), Map.entry(2206, "regtype"),
            Map.entry(24, "regproc"), Map.entry(27, "tid"), Map.entry(29, "cid"), Map.entry(5069, "xid8"),
            Map.entry(2970, "txid_snapshot"), Map.entry(5038, "pg_snapshot"),
            Map.entry(2278, "void"), Map.entry(3734, "regconfig"), Map.entry(1790, "refcursor"));

    static String name(int oid) {
        String n = OTHERS.get(oid);
        if (n != null) return n;
        n = PgType.name(oid);
        return n.startsWith("type ") ? "oid:" + Integer.toUnsignedString(oid) : n;
    }
}
