package io.pgrepl.testkit;

/** How a test server authenticates TCP connections, normal and replication alike. */
public enum AuthMethod {
    TRUST("trust", "scram-sha-256"),
    /** Cleartext password exchange; the stored verifier stays SCRAM. */
    PASSWORD("password", "scram-sha-256"),
    /** Passwords are stored as MD5 hashes, so the server really asks for MD5. */
    MD5("md5", "md5"),
    SCRAM_SHA_256("scram-sha-256", "scram-sha-256");

    private final String hbaMethod;
    private final String passwordEncryption;

    AuthMethod(String hbaMethod, String passwordEncryption) {
        this.hbaMethod = hbaMethod;
        this.passwordEncryption = passwordEncryption;
    }

    /** The method keyword in pg_hba.conf. */
    public String hbaMethod() {
        return hbaMethod;
    }

    /** The {@code password_encryption} used when the roles' passwords are stored. */
    public String passwordEncryption() {
        return passwordEncryption;
    }
}
