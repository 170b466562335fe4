package io.pgrepl.testkit;

/**
 * pg_hba.conf for a test server. A {@code replication=database} connection matches the
 * {@code all} database lines, a physical one only the {@code replication} lines, so every rule
 * is written for both. TLS lines come first: the first matching line decides.
 */
final class HbaConf {
    private static final String ADDRESS = "127.0.0.1/32";

    private HbaConf() {}

    static String render(PgServerSpec spec, int major) {
        StringBuilder hba = new StringBuilder("# written by the pgrepl test kit\n");
        String method = spec.auth().hbaMethod();
        TlsOptions tls = spec.tls();
        if (tls != null) {
            String sslMethod = switch (tls.clientCertMode()) {
                case NONE -> method;
                case CERT -> "cert";
                case VERIFY_CA -> method + (major >= 12 ? " clientcert=verify-ca" : " clientcert=1");
                case VERIFY_FULL -> method + " clientcert=verify-full";
            };
            lines(hba, "hostssl", sslMethod);
        }
        if (tls == null) {
            lines(hba, "host", method);
        } else if (!tls.hostsslOnly()) {
            lines(hba, "hostnossl", method);
        }
        return hba.toString();
    }

    private static void lines(StringBuilder hba, String type, String method) {
        hba.append(type).append(" all all ").append(ADDRESS).append(' ').append(method).append('\n');
        hba.append(type).append(" replication all ").append(ADDRESS).append(' ').append(method).append('\n');
    }
}
