package io.pgrepl.client.internal.config;

import io.pgrepl.client.config.ConnInfoException;
import io.pgrepl.client.config.HostSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * libpq's pairing of the comma-separated {@code host}, {@code hostaddr} and {@code port} lists:
 * hostaddr, when given, has one entry per host; port has one entry for all hosts or one per host;
 * an empty entry means the default (localhost, port 5432).
 */
public final class HostLists {
    private HostLists() {
    }

    /**
     * The servers to try, in order; the arguments may be null or empty.
     *
     * @param host     libpq host: comma-separated names
     * @param hostaddr libpq hostaddr: comma-separated numeric addresses, one per host
     * @param port     libpq port: one port for all hosts or one per host
     * @return the servers, at least one
     * @throws ConnInfoException if the lists do not pair up or a port is invalid
     */
    public static List<HostSpec> parse(String host, String hostaddr, String port) {
        List<String> hosts = split(host);
        List<String> addrs = split(hostaddr);
        List<String> ports = split(port);
        int count = Math.max(hosts.size(), addrs.size());
        if (!hosts.isEmpty() && !addrs.isEmpty() && hosts.size() != addrs.size()) {
            throw new ConnInfoException("could not match " + hosts.size() + " host names to " + addrs.size() + " hostaddr values");
        }
        if (count == 0) {
            count = 1;
        }
        if (ports.size() > 1 && ports.size() != count) {
            throw new ConnInfoException("could not match " + ports.size() + " port numbers to " + count + " hosts");
        }
        List<HostSpec> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String h = i < hosts.size() ? hosts.get(i).strip() : "";
            String a = i < addrs.size() ? addrs.get(i).strip() : "";
            String p = ports.isEmpty() ? "" : ports.get(ports.size() == 1 ? 0 : i).strip();
            if (!a.isEmpty() && !a.matches("[0-9A-Fa-f.:]+")) {
                throw new ConnInfoException("invalid hostaddr value: \"" + ConnInfoParameters.printable(a)
                        + "\" (must be a numeric IPv4 or IPv6 address)");
            }
            out.add(new HostSpec(h.isEmpty() ? (a.isEmpty() ? "localhost" : a) : h, a.isEmpty() ? null : a, port(p)));
        }
        return List.copyOf(out);
    }

    private static int port(String p) {
        if (p.isEmpty()) {
            return ConnInfoParameters.DEFAULT_PORT;
        }
        if (p.length() > 5 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new ConnInfoException("invalid port number: \"" + ConnInfoParameters.printable(p) + "\"");
        }
        int v = Integer.parseInt(p);
        if (v < 1 || v > 65535) {
            throw new ConnInfoException("invalid port number: \"" + p + "\"");
        }
        return v;
    }

    private static List<String> split(String list) {
        if (list == null || list.isEmpty()) {
            return List.of();
        }
        return List.of(list.split(",", -1));
    }
}
