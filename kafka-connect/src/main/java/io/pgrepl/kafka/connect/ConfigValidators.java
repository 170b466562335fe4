package io.pgrepl.kafka.connect;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.kafka.connect.settings.DebeziumSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The validators of {@link PgreplConnectorConfig}'s own definitions. Apart from the config so that
 * the config reads as its keys, definitions and typed accessors, and because each of these refuses
 * a value with a message of its own (never echoing a value that may hold a password).
 */
final class ConfigValidators {
    private ConfigValidators() {}

    static <E extends Enum<E>> ConfigDef.Validator enumValidator(Class<E> type) {
        String[] names = Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT))
                .flatMap(n -> n.equals("base64_url_safe") ? java.util.stream.Stream.of(n, "base64-url-safe") : java.util.stream.Stream.of(n))
                .toArray(String[]::new);
        return ConfigDef.CaseInsensitiveValidString.in(names);
    }

    /**
     * One of an enum's values (case-insensitive), with Debezium's values pgrepl refuses answered by
     * their own advice ({@link DebeziumSettings#refusedValues}) instead of the list of valid values.
     */
    static final class ValuesWithAdvice implements ConfigDef.Validator {
        private final String key;
        private final ConfigDef.Validator values;

        <E extends Enum<E>> ValuesWithAdvice(String key, Class<E> type) {
            this.key = key;
            this.values = enumValidator(type);
        }

        @Override
        public void ensureValid(String name, Object value) {
            if (value != null) {
                String advice = DebeziumSettings.refusedValues(key).get(value.toString().trim().toLowerCase(Locale.ROOT));
                if (advice != null) throw new ConfigException(name + "=" + value + " is not supported by pgrepl: " + advice);
            }
            values.ensureValid(name, value);
        }

        @Override
        public String toString() {
            return values.toString();
        }
    }

    /** Parses the URL without echoing it: the message names what is wrong, never the value (it may hold a password). */
    static final class UrlValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String url = value instanceof Password p ? p.value() : value == null ? null : value.toString();
            if (url == null || url.isBlank()) return; // required unless database.hostname is given: see DatabaseSettings
            try {
                ConnectionConfig.parse(url);
            } catch (RuntimeException e) {
                throw new ConfigException(name + " is not a valid libpq URI or connection string ("
                        + Secrets.mask(String.valueOf(e.getMessage()), url)
                        + "); expected postgresql://user@host:port/dbname?param=value or host=... port=... dbname=...");
            }
        }

        @Override
        public String toString() {
            return "postgresql://user@host:port/dbname?param=value, or host=... port=... dbname=...";
        }
    }

    static final class NonEmpty implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null || value.toString().isBlank()) throw new ConfigException(name + " must not be empty");
        }
    }

    static final class Matches implements ConfigDef.Validator {
        private final Pattern pattern;
        private final String what;

        Matches(Pattern pattern, String what) {
            this.pattern = pattern;
            this.what = what;
        }

        @Override
        public void ensureValid(String name, Object value) {
            if (value == null || !pattern.matcher(value.toString()).matches()) {
                throw new ConfigException(name, value, "must be " + what);
            }
        }

        @Override
        public String toString() {
            return what;
        }
    }

    static final class TableListValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof List<?> list)) return;
            List<String> bad = new ArrayList<>();
            for (Object o : list) {
                try {
                    Pattern.compile(o.toString());
                } catch (RuntimeException e) {
                    bad.add(o.toString());
                }
            }
            if (!bad.isEmpty()) throw new ConfigException(name, value, "not regular expressions: " + bad);
        }
    }
}
