package io.pgrepl.client.config;

import java.util.Locale;

/** libpq's {@code load_balance_hosts} (libpq 16): try the hosts in the given order, or shuffled. */
public enum LoadBalanceHosts {
    /** In the order given (libpq's default). */
    DISABLE,
    /** In a random order chosen per connection attempt, spreading connections over the hosts. */
    RANDOM;

    /** {@return the libpq spelling: {@code disable} or {@code random}} */
    public String keyword() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads the libpq keyword.
     *
     * @param value {@code disable} or {@code random}
     * @return the setting
     * @throws ConnInfoException for any other value
     */
    public static LoadBalanceHosts parse(String value) {
        for (LoadBalanceHosts l : values()) {
            if (l.keyword().equals(value)) {
                return l;
            }
        }
        throw new ConnInfoException("invalid load_balance_hosts value: \"" + value + "\" (expected disable or random)");
    }
}
