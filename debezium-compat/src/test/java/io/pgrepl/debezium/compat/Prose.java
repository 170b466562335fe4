package io.pgrepl.debezium.compat;

/** The fixed text of {@code docs/debezium-compatibility.md}; the rest is written from the runs. */
final class Prose {
    private Prose() {}

    static final String INTRO = """
            # Debezium compatibility

            <!-- Written by debezium-compat's CompatibilityTableTest from the Surefire reports of
                 `mvn -B -pl debezium-compat -am verify -Pdebezium-suite`; edit Prose.java, not this file. -->

            pgrepl's Kafka Connect connector means to be a drop-in for Debezium's PostgreSQL connector, and
            Debezium's own integration tests are the contract. The `debezium-compat` module runs them from
            Debezium 3.6.1.Final's published test jar (`debezium-connector-postgres:tests`, with the test jars
            of `debezium-embedded`, `debezium-connector-common`, `debezium-util` and `debezium-connect-plugins`)
            on Debezium's embedded engine, with pgrepl's `PgreplSourceConnector` behind Debezium's class name:
            a class `io.debezium.connector.postgresql.PostgresConnector` in the module's test classes, which
            come before Debezium's jar on the test class path (each run records which class loaded, and the
            check refuses a pgrepl run that got Debezium's). The same classes also run under Debezium's own
            connector (the module's test classes without that class) on the same server, as the baseline.

            What the shim does beyond delegating, and only what a Kafka Connect worker would: the embedded
            engine's own settings (`offset.storage*`, `offset.flush.*`, `errors.max.retries`,
            `record.processing.*`, ...) are not handed to the connector; `slot.drop.on.stop=true`, which every
            Debezium test sets, is passed on when pgrepl accepts it and otherwise done by the shim (the slot is
            dropped once the stopped task has left it). Nothing else is translated: a setting pgrepl refuses
            fails the test, as it would fail a worker's connector.

            How the run differs from Debezium's own build:
            - The server is a test kit server (`PgServer`, 127.0.0.1, `wal_level=logical`, user, password and
              database `postgres`, `timezone=US/Samoa` as Debezium's test image has, and
              `idle_in_transaction_session_timeout=60s`: a test that fails between its statements can leave
              a transaction open whose locks would hold every later test's DDL), started by the module's
              JUnit session listener (`CompatServer`), which sets the `database.*` system properties Debezium's
              `TestHelper` reads. Its locale is C where Debezium's image has `en_US.utf8`; it has no pgvector
              or decoderbufs, so the classes that need them are not run, nor are those that need a schema
              registry (Avro, Apicurio).
            - PostGIS: `RecordsSnapshotProducerIT` and `RecordsStreamProducerIT` create PostGIS types before
              every test, and `PostgresSchemaIT` has a PostGIS test. The test kit's binaries have no PostGIS;
              where Debian's package for the run's major is installed, `CompatServer` has the test kit add its
              files (control, SQL and `postgis-3.so`; the libraries it links, GEOS and PROJ, come from the
              system) to a copy of the server's installation (`ExtensionFiles`). Debian 12 packages it for
              PostgreSQL 15 only: `apt-get install -y postgresql-15-postgis-3`, then run with
              `-Dcompat.pg.version=15`. The "Last run" line names the PostGIS version where the run had it;
              without it the run says so on its console, and those tests fail for both connectors alike
              (cause "test environment"), so the default build needs neither apt nor PostGIS.
            - Docker: `IncrementalSnapshotIT` starts a Strimzi Kafka cluster (containers) before its first
              test, for its Kafka signal channel. A stand-in under Strimzi's name
              (`io.strimzi.test.container.StrimziKafkaCluster` in the module's test classes) runs Kafka's own
              in-process KRaft cluster from its Connect test jar instead (`FakeKafkaCluster`, 127.0.0.1,
              random ports, the broker settings the test asks for), for both connectors alike.
            - Debezium's `VerifyRecord` round-trips every consumed record through Confluent's Avro converter,
              which is not on Maven Central: a stand-in under that name round-trips through Kafka's
              `JsonConverter`, for both connectors alike. No OpenTelemetry agent is attached.
            - A test still running 5 s after pgrepl's connector failed (its configuration refused, its task
              failed) is ended with that failure (`FailFast`, through Awaitility's fail-fast condition):
              Debezium's tests would otherwise wait up to a minute per wait for records or MBeans that cannot
              come, and the suite would take hours. Debezium's own runs are not touched.

            `mvn verify` runs a few quick classes under pgrepl only, on the newest major, and fails when a test's
            outcome differs from this table (a test listed below that passes, or one not listed that fails):
            fix the regression, or regenerate the table when pgrepl got better. The profile runs everything:

            ```
            mvn -B -pl debezium-compat -am verify -Pdebezium-suite                          # newest and oldest major
            mvn -B -pl debezium-compat -am verify -Pdebezium-suite -Dcompat.oldest.skip=true # newest only
            mvn -B -pl debezium-compat -am verify -Pdebezium-suite -Dcompat.oldest.skip=true \\
                -Dcompat.pg.version=15 -Dcompat.tests=RecordsSnapshotProducerIT,IncrementalSnapshotIT # 15, with PostGIS
            ```

            The newest and oldest majors are PostgreSQL 18 and 10: Debezium 3.6 accepts 9.4 and later, and 10 is
            the oldest the test kit has.

            """;
}
