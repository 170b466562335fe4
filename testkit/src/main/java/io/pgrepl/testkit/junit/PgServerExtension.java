package io.pgrepl.testkit.junit;

import io.pgrepl.testkit.PgServer;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Injects {@link PgServer} parameters; see {@link PgTest}. When the backend cannot run here
 * (no Docker engine for {@code -Dpg.backend=docker}) the test is skipped with the reason.
 */
public class PgServerExtension implements ParameterResolver, ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return BackendCondition.evaluate(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        // A @PgMatrixTest method gets its server from the matrix, not from here.
        return parameter.getParameter().getType() == PgServer.class
                && context.getTestMethod().map(m -> !m.isAnnotationPresent(PgMatrixTest.class)).orElse(true);
    }

    @Override
    public PgServer resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return ServerStore.server(context, ServerStore.spec(parameter, context, null));
    }
}
