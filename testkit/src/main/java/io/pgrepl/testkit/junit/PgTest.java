package io.pgrepl.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class whose methods (and lifecycle methods) may take {@link io.pgrepl.testkit.PgServer}
 * parameters. Servers are made per distinct {@link PgServerConfig} (parameter, then method, then
 * class annotation, else defaults), shared by the whole class and closed after it.
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(PgServerExtension.class)
public @interface PgTest {}
