package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown page that follow a {@code <!-- NAME -->} comment, so that a
 * test applies what the page says verbatim and the two cannot drift apart. A configuration block
 * ({@link #settings}) is {@code name = value  # comment} lines; a comment that starts with
 * {@code 13+} applies the line to PostgreSQL 13 and later only.
 */
public final class DocBlocks {
    private static final Pattern MARKED = Pattern.compile("<!-- ([A-Za-z0-9_.:-]+) -->\\s*\\n\\s*```[a-z]*\\n(.*?)\\n\\s*```",
            Pattern.DOTALL);
    private static final Pattern SINCE = Pattern.compile("^\\s*(\\d+)\\+");

    private final Path page;
    private final Map<String, String> blocks;

    private DocBlocks(Path page, Map<String, String> blocks) {
        this.page = page;
        this.blocks = blocks;
    }

    /** The page {@code relative} to the repository root, found from the working directory or its parent (a module). */
    public static DocBlocks of(String relative) {
        Path p = Path.of(relative);
        if (!Files.exists(p)) p = Path.of("..").resolve(relative);
        try {
            String text = Files.readString(p, StandardCharsets.UTF_8);
            Map<String, String> found = new LinkedHashMap<>();
            Matcher m = MARKED.matcher(text);
            while (m.find()) {
                // An indented block (inside a list item) loses its indentation.
                String indent = m.group(2).lines().findFirst().map(l -> l.substring(0, l.length() - l.stripLeading().length())).orElse("");
                StringBuilder body = new StringBuilder();
                for (String line : m.group(2).lines().toList()) {
                    body.append(line.startsWith(indent) ? line.substring(indent.length()) : line.stripLeading()).append('\n');
                }
                if (found.put(m.group(1), body.toString()) != null) {
                    throw new IllegalStateException(p + ": two blocks named " + m.group(1));
                }
            }
            return new DocBlocks(p, found);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p.toAbsolutePath(), e);
        }
    }

    /** The block's text, one line per line; fails when the page has no block of that name. */
    public String block(String name) {
        String b = blocks.get(name);
        if (b == null) throw new IllegalStateException(page + " has no block marked <!-- " + name + " --> (has " + blocks.keySet() + ")");
        return b;
    }

    /** The block's lines with comments and blank lines removed. */
    public List<String> lines(String name) {
        List<String> out = new ArrayList<>();
        for (String line : block(name).lines().toList()) {
            String l = line.strip();
            if (!l.isEmpty() && !l.startsWith("#") && !l.startsWith("--")) out.add(l);
        }
        return out;
    }

    /** A {@code postgresql.conf} block as settings, without the lines marked for later majors than {@code major}. */
    public Map<String, String> settings(String name, int major) {
        Map<String, String> s = new LinkedHashMap<>();
        for (String line : block(name).lines().toList()) {
            int hash = line.indexOf('#');
            String setting = (hash < 0 ? line : line.substring(0, hash)).strip();
            if (setting.isEmpty()) continue;
            Matcher since = SINCE.matcher(hash < 0 ? "" : line.substring(hash + 1));
            if (since.find() && major < Integer.parseInt(since.group(1))) continue;
            int eq = setting.indexOf('=');
            if (eq < 0) throw new IllegalStateException(page + ": not a setting in block " + name + ": " + line);
            String value = setting.substring(eq + 1).strip();
            if (value.startsWith("'") && value.endsWith("'")) value = value.substring(1, value.length() - 1);
            s.put(setting.substring(0, eq).strip(), value);
        }
        return s;
    }
}
