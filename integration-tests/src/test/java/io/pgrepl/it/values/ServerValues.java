package io.pgrepl.it.values;

import io.netty.buffer.Unpooled;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.PgServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** A value as the server renders it: output function text and send function bytes. */
record ServerValues(String text, byte[] binary) {

    /**
     * {@code SELECT v, encode(send(v), 'hex')} for {@code v = sqlExpr}; {@code setup} runs first in
     * the same simple query (session settings such as bytea_output). The simple query protocol
     * returns {@code v} as its type's output function renders it, which is what pgoutput sends in
     * text mode; {@code v::text} is not always that (bool casts to 'true', char(n) loses its padding).
     */
    static ServerValues of(PgConnection c, String setup, String sqlExpr, String sendFunction) throws Exception {
        String sql = setup + "SELECT v, encode(" + sendFunction + "(v), 'hex') FROM (SELECT " + sqlExpr + " AS v) s";
        List<QueryResult> results = await(c.simpleQuery(sql));
        Row r = results.get(results.size() - 1).singleRow();
        return new ServerValues(new String(r.bytes(0), StandardCharsets.UTF_8), HexFormat.of().parseHex(r.get(1)));
    }

    /** A plain session: the client's startup settings (ISO dates, postgres intervals, UTF8, extra_float_digits=3). */
    static PgConnection connect(PgServer s) throws Exception {
        PgConnection c = await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).applicationName("pgrepl-values").connectTimeout(Duration.ofSeconds(30)).build()));
        await(c.simpleQuery("SET TimeZone = 'UTC'"));
        return c;
    }

    static io.netty.buffer.ByteBuf textBuf(ServerValues v) {
        return Unpooled.wrappedBuffer(v.text().getBytes(StandardCharsets.UTF_8));
    }

    static io.netty.buffer.ByteBuf binaryBuf(ServerValues v) {
        return Unpooled.wrappedBuffer(v.binary());
    }

    /** Equality that looks into byte arrays and lists, and tells -0.0 from 0.0 and NaN from NaN (Double.equals). */
    static boolean same(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) return Arrays.equals(x, y);
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) return false;
            for (int i = 0; i < x.size(); i++) if (!same(x.get(i), y.get(i))) return false;
            return true;
        }
        return Objects.equals(a, b) && (a == null || a.getClass() == b.getClass());
    }

    static String show(Object o) {
        if (o instanceof byte[] b) return "bytes[" + HexFormat.of().formatHex(b) + "]";
        if (o instanceof List<?> l) return l.stream().map(ServerValues::show).toList().toString();
        return o == null ? "null" : o.getClass().getSimpleName() + ":" + o;
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
