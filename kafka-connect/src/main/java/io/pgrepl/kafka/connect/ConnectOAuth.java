package io.pgrepl.kafka.connect;

import io.pgrepl.client.auth.OAuthBearerTokenSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.ConfigException;

/**
 * The connector's OAuth bearer token source (PostgreSQL 18 {@code oauth}): a file re-read for
 * every connection, or a user class implementing {@link OAuthBearerTokenSource}. The token itself
 * is never a setting: Connect would store it in its config topic, and it expires.
 */
final class ConnectOAuth {
    /** A bearer token is a few KB at most; a longer file is not one (and is not read into memory). */
    static final int MAX_TOKEN = 64 * 1024;

    private ConnectOAuth() {}

    /**
     * @param file          database.oauth.token.file, or null
     * @param provider      database.oauth.token.provider.class, or null
     * @param providerProps the provider's own settings (prefix removed)
     * @return the source, or null when neither is set
     * @throws ConfigException when both are set, or the class is not a token source
     */
    static OAuthBearerTokenSource source(String file, Class<?> provider, Map<String, Object> providerProps) {
        boolean hasFile = file != null && !file.isBlank();
        if (hasFile && provider != null) {
            throw new ConfigException(PgreplConnectorConfig.DATABASE_OAUTH_TOKEN_FILE + " and "
                    + PgreplConnectorConfig.DATABASE_OAUTH_TOKEN_PROVIDER_CLASS + " exclude each other");
        }
        if (hasFile) return fromFile(Path.of(file));
        if (provider == null) return null;
        if (!OAuthBearerTokenSource.class.isAssignableFrom(provider)) {
            throw new ConfigException(PgreplConnectorConfig.DATABASE_OAUTH_TOKEN_PROVIDER_CLASS, provider.getName(),
                    "does not implement " + OAuthBearerTokenSource.class.getName());
        }
        try {
            OAuthBearerTokenSource s = (OAuthBearerTokenSource) provider.getDeclaredConstructor().newInstance();
            if (s instanceof Configurable c) c.configure(providerProps);
            return s;
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(PgreplConnectorConfig.DATABASE_OAUTH_TOKEN_PROVIDER_CLASS, provider.getName(),
                    "cannot be instantiated (" + e.getClass().getSimpleName() + "): it needs a public no-argument constructor");
        }
    }

    static OAuthBearerTokenSource fromFile(Path file) {
        return OAuthBearerTokenSource.ofSupplier(() -> {
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MAX_TOKEN + 1);
            } catch (IOException e) {
                // The path, never the content; the exception's class says what went wrong (missing, denied).
                throw new IllegalStateException("cannot read the OAuth token file " + file + " (" + e.getClass().getSimpleName() + ")");
            }
            if (bytes.length > MAX_TOKEN) throw new IllegalStateException("the OAuth token file " + file + " is not a token: over 64 KB");
            String token = new String(bytes, StandardCharsets.US_ASCII).strip();
            if (token.isEmpty()) throw new IllegalStateException("the OAuth token file " + file + " is empty");
            return token;
        });
    }
}
