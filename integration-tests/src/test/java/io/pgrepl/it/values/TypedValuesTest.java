package io.pgrepl.it.values;

import static io.pgrepl.it.values.ServerValues.binaryBuf;
import static io.pgrepl.it.values.ServerValues.same;
import static io.pgrepl.it.values.ServerValues.show;
import static io.pgrepl.it.values.ServerValues.textBuf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.codec.value.PgType;
import io.pgrepl.codec.value.PgValues;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link PgValues} against what real servers render: for every case of {@link ValueCases}, the
 * output function's text ({@code v::text}) and the send function's bytes must both decode to the
 * hand-written Java value. Session: the client's startup settings (DateStyle ISO, IntervalStyle
 * postgres, extra_float_digits 3, UTF8) and TimeZone UTC. All failures of a server are reported
 * together.
 */
class TypedValuesTest {

    @PgMatrixTest
    void textAndBinaryDecodeToTheExpectedValue(PgServer s) throws Exception {
        int major = s.majorVersion();
        List<String> failures = new ArrayList<>();
        int checked = 0;
        try (PgConnection c = ServerValues.connect(s)) {
            for (ValueCases.Case k : ValueCases.all()) {
                if (major < k.minMajor()) continue;
                ServerValues v;
                try {
                    v = ServerValues.of(c, k.setup(), k.sql(), k.send());
                } catch (Exception e) {
                    failures.add(k + ": server rejected it: " + e.getMessage());
                    continue;
                }
                checked++;
                Object fromText = decode(k.oid(), false, v, failures, k);
                Object fromBinary = decode(k.oid(), true, v, failures, k);
                if (!same(k.expected(), fromText)) {
                    failures.add(k + ": text '" + v.text() + "' gave " + show(fromText) + ", expected " + show(k.expected()));
                }
                if (!same(k.expected(), fromBinary)) {
                    failures.add(k + ": binary gave " + show(fromBinary) + ", expected " + show(k.expected()));
                }
            }
        }
        assertTrue(failures.isEmpty(), "PG " + major + ", " + failures.size() + " failures:\n" + String.join("\n", failures));
        assertTrue(checked > 100, "only " + checked + " values checked");
    }

    private static Object decode(int oid, boolean binary, ServerValues v, List<String> failures, ValueCases.Case k) {
        try {
            return PgValues.decode(oid, binary, binary ? binaryBuf(v) : textBuf(v));
        } catch (RuntimeException e) {
            failures.add(k + ": " + (binary ? "binary" : "text '" + v.text() + "'") + " threw " + e);
            return e;
        }
    }

    /** Lower bounds, which the lists leave out, from both forms. */
    @PgMatrixTest
    void arrayLowerBounds(PgServer s) throws Exception {
        try (PgConnection c = ServerValues.connect(s)) {
            check(c, "'{1,2}'::int4[]", new int[] {1});
            check(c, "'{}'::int4[]", new int[0]);
            check(c, "'[0:1]={1,2}'::int4[]", new int[] {0});
            check(c, "'[-5:-4]={\"a,b\",NULL}'::text[]", new int[] {-5});
            check(c, "'[0:1][-1:0]={{1,2},{3,4}}'::int4[]", new int[] {0, -1});
            check(c, "'{{1},{2}}'::int4[]", new int[] {1, 1});
        }
    }

    private static void check(PgConnection c, String sql, int[] expected) throws Exception {
        int oid = sql.contains("text[]") ? PgType.TEXT_ARRAY : PgType.INT4_ARRAY;
        ServerValues v = ServerValues.of(c, "", sql, "array_send");
        assertArrayEquals(expected, PgValues.arrayLowerBounds(oid, false, textBuf(v)), sql + " text " + v.text());
        assertArrayEquals(expected, PgValues.arrayLowerBounds(oid, true, binaryBuf(v)), sql + " binary");
    }
}
