package io.pgrepl.client;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failed TCP connect in psql's words rather than the transport's: Netty reports
 * {@code finishConnect(..) failed with error(-111)} or {@code Connection refused: /127.0.0.1:5432},
 * and a user should read {@code could not connect to server at "127.0.0.1", port 5432: Connection
 * refused} and libpq's hint on the next line.
 */
final class ConnectFailures {
    /** libpq's hint after a failed TCP connect: the usual cause is a server that is down or not listening. */
    static final String HINT = "Is the server running on that host and accepting TCP/IP connections?";

    private static final Pattern ERRNO = Pattern.compile("error\\((-?\\d+)\\)");
    /** Netty's decoration around the operating system's text: the call that failed, the address. */
    private static final Pattern DECORATION = Pattern.compile("^(?:\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?:?\\s*)|:\\s*\\S*/[^\\s]*$");

    private ConnectFailures() {}

    static PgClientException of(String host, int port, Throwable cause) {
        if (cause instanceof UnknownHostException) {
            return new PgClientException(PgClientException.Kind.CONNECTION,
                    "could not translate host name \"" + host + "\" to address: Name or service not known", cause);
        }
        String at = "could not connect to server at \"" + host + "\", port " + port + ": ";
        boolean tcp = cause instanceof ConnectException || cause instanceof NoRouteToHostException;
        return new PgClientException(PgClientException.Kind.CONNECTION, at + reason(cause) + (tcp ? "\n" + HINT : ""), cause);
    }

    /** The operating system's words for why, from the exception's type, errno or text. */
    static String reason(Throwable cause) {
        String msg = cause.getMessage() == null ? "" : cause.getMessage();
        Matcher m = ERRNO.matcher(msg);
        if (m.find()) {
            // Linux errno values, negated by Netty's native transport.
            switch (Math.abs(Integer.parseInt(m.group(1)))) {
                case 111: return "Connection refused";
                case 113: return "No route to host";
                case 101: return "Network is unreachable";
                case 110: return "Connection timed out";
                default: break;
            }
        }
        if (msg.contains("Connection refused")) return "Connection refused";
        if (cause instanceof NoRouteToHostException || msg.contains("No route to host")) return "No route to host";
        if (msg.contains("Network is unreachable")) return "Network is unreachable";
        String stripped = DECORATION.matcher(msg).replaceAll("").strip();
        return stripped.isEmpty() ? cause.getClass().getSimpleName() : stripped;
    }
}
