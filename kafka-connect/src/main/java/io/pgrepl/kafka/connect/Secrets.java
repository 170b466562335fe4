package io.pgrepl.kafka.connect;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps passwords out of messages the connector produces (validation answers, task failures):
 * whatever password the URL or the password key carries is replaced wherever it appears, raw or
 * percent-encoded.
 */
final class Secrets {
    private static final Pattern URI_PASSWORD = Pattern.compile("^[a-zA-Z]+://[^:@/?#]*:([^@/?#]*)@");
    private static final Pattern QUERY_PASSWORD = Pattern.compile("[?&]password=([^&#]*)");
    private static final Pattern CONNINFO_PASSWORD = Pattern.compile("(?:^|\\s)password\\s*=\\s*('(?:[^'\\\\]|\\\\.)*'|\\S+)");

    private Secrets() {}

    /** {@code message} with every password found in {@code urlOrConninfo} and {@code extra} replaced by ****. */
    static String mask(String message, String urlOrConninfo, String... extra) {
        if (message == null) return null;
        List<String> secrets = new ArrayList<>();
        if (urlOrConninfo != null) {
            collect(URI_PASSWORD.matcher(urlOrConninfo), secrets);
            collect(QUERY_PASSWORD.matcher(urlOrConninfo), secrets);
            collect(CONNINFO_PASSWORD.matcher(urlOrConninfo), secrets);
        }
        for (String e : extra) if (e != null && !e.isEmpty()) secrets.add(e);
        String out = message;
        for (String s : secrets) {
            if (s.isEmpty()) continue;
            out = out.replace(s, "****");
            String decoded = decode(s);
            if (!decoded.isEmpty()) out = out.replace(decoded, "****");
            if (s.startsWith("'") && s.endsWith("'") && s.length() > 2) {
                out = out.replace(s.substring(1, s.length() - 1), "****");
            }
        }
        return out;
    }

    private static void collect(Matcher m, List<String> into) {
        while (m.find()) into.add(m.group(1));
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }
}
