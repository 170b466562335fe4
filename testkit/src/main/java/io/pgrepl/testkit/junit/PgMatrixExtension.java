package io.pgrepl.testkit.junit;

import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/** One invocation of a {@link PgMatrixTest} per major, each with that major's server. */
public class PgMatrixExtension implements TestTemplateInvocationContextProvider, ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return BackendCondition.evaluate(context);
    }

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return context.getTestMethod().map(m -> m.isAnnotationPresent(PgMatrixTest.class)).orElse(false);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        List<Integer> majors = PgVersions.matrix();
        if (context.getRequiredTestMethod().getAnnotation(PgMatrixTest.class).newestAndOldest() && majors.size() > 2) {
            List<Integer> sorted = majors.stream().sorted().toList();
            majors = List.of(sorted.get(sorted.size() - 1), sorted.get(0));
        }
        return majors.stream().map(Invocation::new);
    }

    private record Invocation(int major) implements TestTemplateInvocationContext {
        @Override
        public String getDisplayName(int invocationIndex) {
            return "PostgreSQL " + major;
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(new ParameterResolver() {
                @Override
                public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
                    return parameter.getParameter().getType() == PgServer.class;
                }

                @Override
                public PgServer resolveParameter(ParameterContext parameter, ExtensionContext context) {
                    return ServerStore.server(context, ServerStore.spec(parameter, context, major));
                }
            });
        }
    }
}
