package io.pgrepl.testkit;

import java.util.ServiceLoader;

final class SqlExecutors {
    private SqlExecutors() {}

    static SqlExecutor find() {
        return ServiceLoader.load(SqlExecutor.class).findFirst().orElseThrow(() -> new IllegalStateException(
                "PgServer.sql needs an io.pgrepl.testkit.SqlExecutor implementation on the classpath "
                        + "(registered in META-INF/services/io.pgrepl.testkit.SqlExecutor); none was found"));
    }
}
