package io.pgrepl.client;

/**
 * Frontend/backend protocol versions this client speaks, for libpq 18's {@code min_protocol_version}
 * and {@code max_protocol_version}. 3.1 is reserved and never used; 3.2 (PostgreSQL 18) brings the
 * longer cancel key.
 */
public enum ProtocolVersion {
    /** Protocol 3.0, spoken by every supported server. */
    V3_0(0),
    /** Protocol 3.2 (PostgreSQL 18): variable-length cancel keys. */
    V3_2(2);

    /** What {@code latest} means for this client. */
    public static final ProtocolVersion LATEST = V3_2;

    private final int minor;

    ProtocolVersion(int minor) {
        this.minor = minor;
    }

    /** {@return the minor version number} */
    public int minor() {
        return minor;
    }

    /**
     * The StartupMessage version code: major 3 in the high 16 bits, the minor in the low ones.
     *
     * @return the code
     */
    public int code() {
        return (3 << 16) | minor;
    }

    /**
     * libpq spelling: {@code 3.0}, {@code 3.2} or {@code latest}.
     *
     * @param s the value of min_protocol_version or max_protocol_version
     * @return the version
     * @throws IllegalArgumentException for any other value
     */
    public static ProtocolVersion parse(String s) {
        return switch (s.trim()) {
            case "3.0" -> V3_0;
            case "3.2" -> V3_2;
            case "latest" -> LATEST;
            default -> throw new IllegalArgumentException("invalid protocol version \"" + s + "\" (expected 3.0, 3.2 or latest)");
        };
    }

    @Override
    public String toString() {
        return "3." + minor;
    }
}
