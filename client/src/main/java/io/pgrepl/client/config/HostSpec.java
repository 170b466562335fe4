package io.pgrepl.client.config;

import java.util.Objects;

/**
 * One server of a (possibly multi-host) connection string: libpq's {@code host}, {@code hostaddr}
 * and {@code port} at the same position of their comma-separated lists.
 *
 * @param host        name used for TLS verification, SNI and the password file
 * @param hostAddress numeric address to connect to instead of resolving {@code host}, or null
 * @param port        TCP port
 */
public record HostSpec(String host, String hostAddress, int port) {
    /**
     * Checks the port.
     *
     * @param host        name used for TLS verification, SNI and the password file
     * @param hostAddress numeric address to connect to instead of resolving {@code host}, or null
     * @param port        TCP port
     * @throws IllegalArgumentException for a port outside 1 to 65535
     */
    public HostSpec {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("invalid port number: " + port);
        }
    }

    @Override
    public String toString() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return h + ":" + port + (hostAddress == null || hostAddress.equals(host) ? "" : " (" + hostAddress + ")");
    }
}
