package io.pgrepl.testkit.secrets;

import java.util.Comparator;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Keeps the discovery order but moves {@link RunLast} classes to the end. Set per module in
 * {@code junit-platform.properties}: {@code junit.jupiter.testclass.order.default=io.pgrepl.testkit.secrets.RunLastOrderer}.
 */
public final class RunLastOrderer implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparingInt(d -> d.isAnnotated(RunLast.class) ? 1 : 0));
    }
}
