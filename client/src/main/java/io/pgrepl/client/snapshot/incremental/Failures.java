package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import java.util.concurrent.CompletionException;

/** Which chunk failures are worth a new connection. */
final class Failures {
    private Failures() {}

    /** A lost connection or a terminated session: worth a new connection. Errors of the query itself are not. */
    static boolean isTransient(Throwable e) {
        Throwable c = unwrap(e);
        if (c instanceof PgClientException p) {
            return p.kind() == PgClientException.Kind.CONNECTION || p.kind() == PgClientException.Kind.TIMEOUT;
        }
        if (c instanceof PgException p && p.sqlState() != null) {
            String st = p.sqlState();
            // 08: connection exceptions; 57P01-03: terminated, crash shutdown, cannot connect now; 40001: serialization failure
            return st.startsWith("08") || st.equals("57P01") || st.equals("57P02") || st.equals("57P03") || st.equals("40001");
        }
        return false;
    }

    static String message(Throwable e) {
        return unwrap(e).getMessage();
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
