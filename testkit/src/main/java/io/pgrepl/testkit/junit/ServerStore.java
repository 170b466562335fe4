package io.pgrepl.testkit.junit;

import io.pgrepl.testkit.PgBackendUnavailableException;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgServerSpec;
import io.pgrepl.testkit.TlsOptions;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Parameter;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;

/** Servers cached in the test class's store, so each config starts once per class. */
final class ServerStore {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ServerStore.class);

    private ServerStore() {}

    /** Closed by JUnit when the class's store closes (store values that are AutoCloseable). */
    private record Held(PgServer server) implements AutoCloseable {
        @Override
        public void close() {
            server.close();
        }
    }

    private record Unavailable(String reason) {}

    static PgServer server(ExtensionContext context, PgServerSpec spec) {
        ExtensionContext.Store store = classContext(context).getStore(NAMESPACE);
        String key = spec.toString();
        Object cached = store.get(key);
        if (cached instanceof Unavailable u) {
            return Assumptions.abort(u.reason());
        }
        if (cached instanceof Held h) {
            return h.server();
        }
        try {
            PgServer server = PgServer.start(spec);
            store.put(key, new Held(server));
            return server;
        } catch (PgBackendUnavailableException e) {
            store.put(key, new Unavailable(e.getMessage()));
            return Assumptions.abort(e.getMessage());
        }
    }

    static PgServerSpec spec(ParameterContext parameter, ExtensionContext context, Integer versionOverride) {
        PgServerConfig config = find(parameter.getParameter())
                .or(() -> context.getTestMethod().flatMap(ServerStore::find))
                .or(() -> context.getTestClass().flatMap(ServerStore::find))
                .orElse(null);
        PgServerSpec.Builder builder = PgServer.builder();
        if (config != null) {
            if (config.version() != 0) {
                builder.version(config.version());
            }
            builder.auth(config.auth());
            TlsOptions tls = switch (config.tls()) {
                case NONE -> null;
                case RSA_SHA256 -> TlsOptions.rsaSha256();
                case ECDSA_SHA384 -> TlsOptions.ecdsaSha384();
            };
            if (tls != null) {
                builder.tls(tls.hostsslOnly(config.hostsslOnly()).clientCertificates(config.clientCertificates()));
            }
            for (String setting : config.settings()) {
                int eq = setting.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("@PgServerConfig setting must be name=value: " + setting);
                }
                builder.setting(setting.substring(0, eq).trim(), setting.substring(eq + 1).trim());
            }
        }
        if (versionOverride != null) {
            builder.version(versionOverride);
        }
        return builder.build();
    }

    private static Optional<PgServerConfig> find(AnnotatedElement element) {
        return Optional.ofNullable(element.getAnnotation(PgServerConfig.class));
    }

    static Optional<PgServerConfig> find(Parameter parameter) {
        return Optional.ofNullable(parameter.getAnnotation(PgServerConfig.class));
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext c = context;
        while (!(c.getElement().orElse(null) instanceof Class) && c.getParent().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }
}
