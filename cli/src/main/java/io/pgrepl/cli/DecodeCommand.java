package io.pgrepl.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * {@code pgrepl decode [FILE|-]}: reads {@code LSN<TAB>HEX} lines, as printed by
 * {@code COPY (SELECT lsn, encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes(...)) TO STDOUT},
 * and prints one JSON object per pgoutput message (see {@link ChangeJson}). One decoder reads all
 * lines, so stream blocks and the relation cache carry from line to line. The first bad line stops
 * the run with its line number and exit code 1, after everything before it was printed.
 */
final class DecodeCommand implements Main.Command {
    private final InputStream stdin;

    DecodeCommand() {
        this(System.in);
    }

    DecodeCommand(InputStream stdin) {
        this.stdin = stdin;
    }

    @Override
    public String summary() {
        return "decode LSN<TAB>HEX lines of pgoutput messages (a file or stdin) to JSON lines";
    }

    @Override
    public Opts.Help help() {
        return new Opts.Help("pgrepl decode [FILE|-]",
                "Reads LSN<TAB>HEX lines of pgoutput messages (from FILE, or stdin for '-' or none) and prints one\n"
                        + "JSON object per message in the protocol schema of 'pgrepl stream --format protocol'.",
                java.util.List.of(),
                "psql -XAtc \"COPY (SELECT lsn, encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('s', NULL, NULL,\n"
                        + "  'proto_version', '1', 'publication_names', 'p')) TO STDOUT\" | pgrepl decode");
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Opts.Parsed p = Opts.parse(java.util.List.of(), args);
        if (p.positional.size() > 1) throw new UsageException("more than one FILE");
        String source = p.positional.isEmpty() ? "-" : p.positional.get(0);
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
        try (Reader in = open(source)) {
            String bad = decode(new BufferedReader(in), w);
            w.flush();
            if (bad != null) {
                err.println("pgrepl decode: " + bad);
                return 1;
            }
            return 0;
        } finally {
            w.flush();
        }
    }

    private Reader open(String source) throws IOException, UsageException {
        if (source.equals("-")) return new InputStreamReader(stdin, StandardCharsets.UTF_8);
        try {
            return Files.newBufferedReader(Path.of(source), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new UsageException("no such file: " + CliErrors.shown(source));
        }
    }

    /** Decodes every line to {@code out}; returns null, or the description of the first bad line. */
    static String decode(BufferedReader in, Appendable out) throws IOException {
        PgOutputDecoder decoder = new PgOutputDecoder();
        ChangeJson json = new ChangeJson(out);
        String line;
        int number = 0;
        while ((line = in.readLine()) != null) {
            number++;
            if (line.isBlank()) continue;
            try {
                int tab = line.indexOf('\t');
                if (tab < 0) throw new IllegalArgumentException("expected LSN<TAB>HEX");
                long lsn = Lsn.parse(line.substring(0, tab).trim());
                ByteBuf data = Unpooled.wrappedBuffer(hex(line, tab + 1));
                json.write(decoder, lsn, data);
            } catch (RuntimeException e) {
                return "line " + number + ": " + CliErrors.oneLine(e);
            }
        }
        return null;
    }

    /** Hex digits from {@code from} to the end of the line, after an optional {@code \x} or {@code \\x}. */
    static byte[] hex(String line, int from) {
        int end = line.length();
        while (end > from && Character.isWhitespace(line.charAt(end - 1))) end--;
        if (line.startsWith("\\\\x", from)) from += 3;
        else if (line.startsWith("\\x", from)) from += 2;
        int n = end - from;
        if (n == 0) throw new IllegalArgumentException("no message bytes");
        if (n % 2 != 0) throw new IllegalArgumentException("odd number of hex digits (" + n + ")");
        byte[] bytes = new byte[n / 2];
        for (int i = 0; i < bytes.length; i++) {
            int hi = Character.digit(line.charAt(from + 2 * i), 16);
            int lo = Character.digit(line.charAt(from + 2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not a hex digit at column " + (from + 2 * i + (hi < 0 ? 1 : 2)));
            }
            bytes[i] = (byte) (hi << 4 | lo);
        }
        return bytes;
    }
}
