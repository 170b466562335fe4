package io.pgrepl.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the method once per major of {@link io.pgrepl.testkit.PgVersions#matrix()} with a
 * {@link io.pgrepl.testkit.PgServer} parameter of that major (configured by an optional
 * {@link PgServerConfig} on the parameter, method or class). One server per major and config,
 * kept for the whole class and closed after it. {@code -Dpg.versions=17} narrows the matrix.
 *
 * <p>{@code @PgMatrixTest(newestAndOldest = true)} runs on the matrix's newest and oldest majors
 * only: for a test of the client's own behaviour (its timers, its faces) that the server's major
 * does not change, where the middle majors would add minutes and no evidence.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
@ExtendWith(PgMatrixExtension.class)
public @interface PgMatrixTest {
    /** {@return whether to run on the matrix's newest and oldest majors only} */
    boolean newestAndOldest() default false;
}
