package io.pgrepl.testkit.junit;

import io.pgrepl.testkit.AuthMethod;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** How the server injected by {@link PgTest} or {@link PgMatrixTest} is made. */
@Documented
@Inherited
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
public @interface PgServerConfig {

    /** Major version; 0 means {@code -Dpg.default.version} (else 18). Ignored by {@link PgMatrixTest}. */
    int version() default 0;

    AuthMethod auth() default AuthMethod.SCRAM_SHA_256;

    Tls tls() default Tls.NONE;

    /** Only with TLS: reject non-TLS connections. */
    boolean hostsslOnly() default false;

    /** Only with TLS: {@code hostssl ... cert} authentication. */
    boolean clientCertificates() default false;

    /** Extra postgresql.conf settings, each {@code "name=value"}. */
    String[] settings() default {};

    enum Tls {
        NONE,
        RSA_SHA256,
        ECDSA_SHA384
    }
}
