package io.pgrepl.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Test-only SqlExecutor (registered in test resources) that records calls: proves the ServiceLoader hook. */
public class RecordingSqlExecutor implements SqlExecutor {
    static final List<String> CALLS = new CopyOnWriteArrayList<>();

    @Override
    public void execute(PgServer server, String database, String sql) {
        CALLS.add(server.port() + "/" + database + "/" + sql);
    }
}
