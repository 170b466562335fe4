package io.pgrepl.testkit.junit;

import io.pgrepl.testkit.Backend;
import io.pgrepl.testkit.docker.DockerPgServers;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips (rather than fails) tests whose servers cannot exist here: a parameter resolver cannot
 * abort a test, JUnit reports its exceptions as failures, so this is checked beforehand.
 */
final class BackendCondition {
    private BackendCondition() {}

    static ConditionEvaluationResult evaluate(ExtensionContext context) {
        if (Backend.fromSystemProperty() != Backend.DOCKER) {
            return ConditionEvaluationResult.enabled("embedded PostgreSQL binaries");
        }
        Optional<String> reason = DockerPgServers.unavailableReason();
        if (reason.isPresent()) {
            return ConditionEvaluationResult.disabled(reason.get());
        }
        for (PgServerConfig config : configs(context)) {
            if (config.tls() != PgServerConfig.Tls.NONE) {
                return ConditionEvaluationResult.disabled("the docker backend has no TLS servers");
            }
        }
        return ConditionEvaluationResult.enabled("Docker engine available");
    }

    private static List<PgServerConfig> configs(ExtensionContext context) {
        List<AnnotatedElement> elements = new ArrayList<>();
        context.getTestClass().ifPresent(elements::add);
        Optional<Method> method = context.getTestMethod();
        method.ifPresent(m -> {
            elements.add(m);
            elements.addAll(List.of(m.getParameters()));
        });
        List<PgServerConfig> configs = new ArrayList<>();
        for (AnnotatedElement e : elements) {
            PgServerConfig config = e.getAnnotation(PgServerConfig.class);
            if (config != null) {
                configs.add(config);
            }
        }
        return configs;
    }
}
