package io.pgrepl.codec.golden;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses test_decoding output (options include-xids=0, skip-empty-xacts=1, include-timestamp=0)
 * into {@link Changes} lines. test_decoding is the server's own reference decoder, so it is an
 * oracle independent of ours. Its format, per line:
 * <pre>
 * BEGIN / COMMIT
 * table public.t: INSERT: id[integer]:1 name[text]:'it''s' n[integer]:null
 * table public.t: UPDATE: old-key: id[integer]:1 new-tuple: id[integer]:2 big[text]:unchanged-toast-datum
 * table public.t: DELETE: id[integer]:1            (old tuples omit NULL columns)
 * table public.a, public.b: TRUNCATE: restart_seqs cascade      or (no-flags)
 * message: transactional: 1 prefix: p, sz: 3 content:abc
 * </pre>
 * Identifiers are quoted like quote_identifier; string values are single-quoted with '' doubling.
 */
final class TestDecodingOracle {
    private TestDecodingOracle() {}

    /** Lines as stored in the golden files: {@code LSN TAB data} with COPY-style escapes. */
    static List<String> parseFile(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            if (line.isEmpty()) continue;
            int tab = line.indexOf('\t');
            out.add(parseLine(unescape(line.substring(tab + 1))));
        }
        // Before 17, test_decoding with skip-empty-xacts printed a transactional message that
        // opens a transaction ahead of that transaction's BEGIN; put it inside, where it belongs.
        for (int i = 0; i + 1 < out.size(); i++) {
            if (out.get(i).startsWith("MESSAGE tx ") && out.get(i + 1).equals(Changes.BEGIN)) {
                out.set(i + 1, out.get(i));
                out.set(i, Changes.BEGIN);
            }
        }
        return out;
    }

    static String unescape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                sb.append(c);
                continue;
            }
            char n = s.charAt(++i);
            sb.append(switch (n) {
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                case '\\' -> '\\';
                default -> throw new IllegalArgumentException("bad escape \\" + n + " in " + s);
            });
        }
        return sb.toString();
    }

    static String parseLine(String data) {
        if (data.equals("BEGIN") || data.startsWith("BEGIN ")) return Changes.BEGIN;
        if (data.equals("COMMIT") || data.startsWith("COMMIT ")) return Changes.COMMIT;
        if (data.startsWith("message: ")) return parseMessage(data);
        if (!data.startsWith("table ")) throw new IllegalArgumentException("unexpected test_decoding line: " + data);
        Cursor c = new Cursor(data, 6);
        List<String> tables = new ArrayList<>();
        do {
            String first = c.identifier();
            c.expect(".");
            tables.add(first + "." + c.identifier());
        } while (c.tryConsume(", "));
        c.expect(": ");
        int colon = data.indexOf(':', c.pos);
        String op = data.substring(c.pos, colon);
        c.pos = colon + 1;
        c.tryConsume(" ");
        switch (op) {
            case "INSERT" -> {
                return Changes.change("INSERT", tables.get(0), null, c.tuple(null));
            }
            case "UPDATE" -> {
                List<Changes.Col> old = null;
                if (c.tryConsume("old-key: ")) {
                    old = c.tuple("new-tuple: ");
                    c.expect("new-tuple: ");
                }
                return Changes.change("UPDATE", tables.get(0), old, c.tuple(null));
            }
            case "DELETE" -> {
                return Changes.change("DELETE", tables.get(0), c.tuple(null), null);
            }
            case "TRUNCATE" -> {
                String rest = data.substring(c.pos);
                boolean restart = rest.contains("restart_seqs");
                boolean cascade = rest.contains("cascade");
                return Changes.truncate(tables, cascade, restart);
            }
            default -> throw new IllegalArgumentException("unknown operation " + op + " in " + data);
        }
    }

    private static String parseMessage(String data) {
        // message: transactional: 1 prefix: golden, sz: 13 content:...
        Cursor c = new Cursor(data, "message: transactional: ".length());
        boolean tx = c.s.charAt(c.pos) == '1';
        c.pos++;
        c.expect(" prefix: ");
        int comma = data.indexOf(", sz: ", c.pos);
        String prefix = data.substring(c.pos, comma);
        int contentAt = data.indexOf(" content:", comma);
        int size = Integer.parseInt(data.substring(comma + 6, contentAt));
        String content = data.substring(contentAt + 9);
        if (content.getBytes(java.nio.charset.StandardCharsets.UTF_8).length != size) {
            throw new IllegalArgumentException("content length differs from sz in " + data);
        }
        return Changes.message(tx, prefix, content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static final class Cursor {
        final String s;
        int pos;

        Cursor(String s, int pos) {
            this.s = s;
            this.pos = pos;
        }

        boolean tryConsume(String t) {
            if (s.startsWith(t, pos)) {
                pos += t.length();
                return true;
            }
            return false;
        }

        void expect(String t) {
            if (!tryConsume(t)) throw new IllegalArgumentException("expected '" + t + "' at " + pos + " in " + s);
        }

        /** quote_identifier output: "..." with "" doubling, or a bare identifier. */
        String identifier() {
            if (s.charAt(pos) == '"') {
                StringBuilder sb = new StringBuilder();
                pos++;
                while (true) {
                    char ch = s.charAt(pos++);
                    if (ch == '"') {
                        if (pos < s.length() && s.charAt(pos) == '"') {
                            sb.append('"');
                            pos++;
                        } else {
                            return sb.toString();
                        }
                    } else {
                        sb.append(ch);
                    }
                }
            }
            int start = pos;
            while (pos < s.length() && ".:[, ".indexOf(s.charAt(pos)) < 0) pos++;
            return s.substring(start, pos);
        }

        /** name[type]:value separated by spaces, up to the end or {@code stop}. */
        List<Changes.Col> tuple(String stop) {
            List<Changes.Col> cols = new ArrayList<>();
            if (tryConsume("(no-tuple-data)")) return cols;
            while (pos < s.length()) {
                if (stop != null && s.startsWith(stop, pos)) break;
                String name = identifier();
                expect("[");
                int typeEnd = s.indexOf("]:", pos);
                String type = s.substring(pos, typeEnd);
                pos = typeEnd + 2;
                if (tryConsume("null")) {
                    cols.add(Changes.Col.nul(name, type));
                } else if (tryConsume("unchanged-toast-datum")) {
                    cols.add(Changes.Col.toast(name, type));
                } else if (s.charAt(pos) == '\'') {
                    StringBuilder sb = new StringBuilder();
                    pos++;
                    while (true) {
                        char ch = s.charAt(pos++);
                        if (ch == '\'') {
                            if (pos < s.length() && s.charAt(pos) == '\'') {
                                sb.append('\'');
                                pos++;
                            } else {
                                break;
                            }
                        } else {
                            sb.append(ch);
                        }
                    }
                    cols.add(Changes.Col.value(name, type, sb.toString()));
                } else {
                    int end = s.indexOf(' ', pos);
                    if (end < 0) end = s.length();
                    cols.add(Changes.Col.value(name, type, s.substring(pos, end)));
                    pos = end;
                }
                tryConsume(" ");
            }
            return cols;
        }
    }
}
