package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import java.util.concurrent.CompletionException;

/**
 * Which failures of a table's planning or chunk reads are worth another attempt (bounded, after a
 * pause): those the same statement may not meet again. The rest (a missing table 42P01, a missing
 * privilege 42501, a table without a usable key, a bad condition) fail the table at once.
 */
final class Failures {
    private Failures() {}

    /**
     * A lost connection, a terminated session, a lock not granted in time, a serialization failure or
     * deadlock, a cancelled statement, no connection slot free: worth another attempt on a new
     * connection. Errors of the query itself are not.
     */
    static boolean isTransient(Throwable e) {
        Throwable c = unwrap(e);
        if (c instanceof PgClientException p) {
            return p.kind() == PgClientException.Kind.CONNECTION || p.kind() == PgClientException.Kind.TIMEOUT;
        }
        if (c instanceof PgException p && p.sqlState() != null) {
            String st = p.sqlState();
            // 08: connection exceptions; 57P01-03: terminated, crash shutdown, cannot connect now; 40001: serialization
            // failure; 40P01: deadlock; 55P03: lock_not_available (lock_timeout, NOWAIT); 57014: statement cancelled
            // (statement_timeout, a cancel request); 53300: too many connections
            return st.startsWith("08") || st.equals("57P01") || st.equals("57P02") || st.equals("57P03") || st.equals("40001")
                    || st.equals("40P01") || st.equals("55P03") || st.equals("57014") || st.equals("53300");
        }
        return false;
    }

    /** The pause before attempt {@code failures + 1}: {@code firstMs} doubled per failure, at most {@code maxMs}. */
    static long backoffMs(int failures, long firstMs, long maxMs) {
        return Math.min(maxMs, firstMs << Math.min(20, Math.max(0, failures - 1)));
    }

    static String message(Throwable e) {
        return unwrap(e).getMessage();
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
