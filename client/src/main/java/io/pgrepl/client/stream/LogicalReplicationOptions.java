package io.pgrepl.client.stream;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.codec.Lsn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What START_REPLICATION ... LOGICAL sends (slot, start position, pgoutput options) and how the
 * stream behaves (status interval, idle confirmation, receive timeout, auto-acknowledge).
 * Immutable; build with {@link #builder(String)}. Every pgoutput option is checked against the
 * server version by {@link #startCommand(int)} before anything is sent.
 */
public final class LogicalReplicationOptions {
    /** {@link Builder#protoVersion(int)} value choosing the highest version the server supports. */
    public static final int PROTO_AUTO = 0;
    /** The longest {@link Builder#readCoalescing} pause accepted. */
    public static final Duration MAX_READ_COALESCING = Duration.ofMillis(100);

    private final String slotName;
    private final long startLsn;
    private final int protoVersion;
    private final List<String> publicationNames;
    private final Boolean binary;
    private final Boolean messages;
    private final StreamingMode streaming;
    private final Boolean twoPhase;
    private final OriginFilter origin;
    private final Duration statusInterval;
    private final boolean confirmIdleKeepalives;
    private final Duration receiveTimeout;
    private final boolean autoAcknowledge;
    private final Duration readCoalescing;

    private LogicalReplicationOptions(Builder b) {
        this.slotName = Identifiers.requireSlotName(b.slotName);
        this.startLsn = b.startLsn;
        this.protoVersion = b.protoVersion;
        if (b.publicationNames.isEmpty()) {
            throw invalid("publication_names needs at least one publication");
        }
        this.publicationNames = List.copyOf(b.publicationNames);
        this.binary = b.binary;
        this.messages = b.messages;
        this.streaming = b.streaming;
        this.twoPhase = b.twoPhase;
        this.origin = b.origin;
        if (b.statusInterval.isNegative() || b.statusInterval.isZero()) throw invalid("statusInterval must be positive");
        this.statusInterval = b.statusInterval;
        this.confirmIdleKeepalives = b.confirmIdleKeepalives;
        if (b.receiveTimeout != null && (b.receiveTimeout.isNegative() || b.receiveTimeout.isZero())) {
            throw invalid("receiveTimeout must be positive (or null for none)");
        }
        this.receiveTimeout = b.receiveTimeout;
        this.autoAcknowledge = b.autoAcknowledge;
        if (b.readCoalescing.isNegative() || b.readCoalescing.compareTo(MAX_READ_COALESCING) > 0) {
            throw invalid("readCoalescing must be between 0 and " + MAX_READ_COALESCING.toMillis() + " ms");
        }
        if (receiveTimeout != null && receiveTimeout.compareTo(b.readCoalescing) <= 0) { // nothing is read during the pause
            throw invalid("readCoalescing must be shorter than receiveTimeout");
        }
        this.readCoalescing = b.readCoalescing;
    }

    /**
     * Starts options for one logical slot; at least one publication must be added.
     *
     * @param slotName the replication slot to stream from (checked when built)
     * @return a builder with the defaults named on its setters
     */
    public static Builder builder(String slotName) {
        return new Builder(slotName);
    }

    /** {@return a builder holding these options, to derive a changed copy} */
    public Builder toBuilder() {
        Builder b = new Builder(slotName);
        b.startLsn = startLsn;
        b.protoVersion = protoVersion;
        b.publicationNames.addAll(publicationNames);
        b.binary = binary;
        b.messages = messages;
        b.streaming = streaming;
        b.twoPhase = twoPhase;
        b.origin = origin;
        b.statusInterval = statusInterval;
        b.confirmIdleKeepalives = confirmIdleKeepalives;
        b.receiveTimeout = receiveTimeout;
        b.autoAcknowledge = autoAcknowledge;
        b.readCoalescing = readCoalescing;
        return b;
    }

    /** {@return the slot named in START_REPLICATION SLOT} */
    public String slotName() { return slotName; }
    /** {@return the LSN START_REPLICATION asks for; 0 (the default) means the slot's confirmed_flush_lsn} */
    public long startLsn() { return startLsn; }
    /** {@return pgoutput proto_version: {@link #PROTO_AUTO} or 1–4} */
    public int protoVersion() { return protoVersion; }
    /** {@return pgoutput publication_names: the publications whose changes are sent} */
    public List<String> publicationNames() { return publicationNames; }
    /** {@return pgoutput binary: column values in binary form; null: not sent (server default off)} */
    public Boolean binary() { return binary; }
    /** {@return pgoutput messages: also send pg_logical_emit_message() messages; null: not sent (server default off)} */
    public Boolean messages() { return messages; }
    /** {@return pgoutput streaming: how in-progress transactions are sent; null: not sent (server default off)} */
    public StreamingMode streaming() { return streaming; }
    /** {@return pgoutput two_phase: decode prepared transactions at PREPARE TRANSACTION; null: not sent} */
    public Boolean twoPhase() { return twoPhase; }
    /** {@return pgoutput origin: all changes, or only those without a replication origin; null: not sent (any)} */
    public OriginFilter origin() { return origin; }
    /** {@return how often a Standby Status Update is sent unasked (default 10 s)} */
    public Duration statusInterval() { return statusInterval; }
    /** {@return whether an idle stream confirms the WAL end that keepalives report (default true)} */
    public boolean confirmIdleKeepalives() { return confirmIdleKeepalives; }
    /** {@return how long the stream may receive nothing before it fails; null: no client-side receive timeout} */
    public Duration receiveTimeout() { return receiveTimeout; }
    /** {@return whether each transaction is acknowledged when its commit callback returns (default false)} */
    public boolean autoAcknowledge() { return autoAcknowledge; }
    /** {@return how long reading pauses after a small socket read (default 1 ms); zero: never} */
    public Duration readCoalescing() { return readCoalescing; }

    /**
     * Highest pgoutput protocol version a server major supports.
     *
     * @param serverVersionNum the server_version_num, e.g. 170006
     * @return 4 on 16+, 3 on 15, 2 on 14, else 1
     */
    public static int maxProtoVersion(int serverVersionNum) {
        int major = serverVersionNum / 10000;
        if (major >= 16) return 4;
        if (major == 15) return 3;
        if (major == 14) return 2;
        return 1;
    }

    /**
     * The protocol version that will be sent to this server.
     *
     * @param serverVersionNum the server_version_num, e.g. 170006
     * @return the chosen version, or the highest the server supports for {@link #PROTO_AUTO}
     */
    public int effectiveProtoVersion(int serverVersionNum) {
        return protoVersion == PROTO_AUTO ? maxProtoVersion(serverVersionNum) : protoVersion;
    }

    /**
     * The streaming mode sent to this server, {@link StreamingMode#AUTO} resolved.
     *
     * @param serverVersionNum the server_version_num, e.g. 170006
     * @return the mode, or null when the option is not sent
     */
    public StreamingMode effectiveStreaming(int serverVersionNum) {
        if (streaming != StreamingMode.AUTO) return streaming;
        int proto = effectiveProtoVersion(serverVersionNum);
        int major = serverVersionNum / 10000;
        if (major >= 16 && proto >= 4) return StreamingMode.PARALLEL;
        if (major >= 14 && proto >= 2) return StreamingMode.ON;
        return null;
    }

    /**
     * The START_REPLICATION command for a server of {@code serverVersionNum} (e.g. 170006).
     * Throws {@link PgClientException} (UNSUPPORTED_BY_SERVER) naming the option and the version it
     * needs when the server or the chosen protocol version cannot take an option.
     *
     * @param serverVersionNum the server_version_num the server reported
     * @return the command text, with the publication names quoted as the server reads them
     */
    public String startCommand(int serverVersionNum) {
        return StartReplicationCommand.text(this, serverVersionNum);
    }

    static PgClientException invalid(String msg) {
        return new PgClientException(PgClientException.Kind.INVALID_ARGUMENT, msg);
    }

    @Override
    public String toString() {
        return "LogicalReplicationOptions{slot=" + slotName + ", start=" + Lsn.format(startLsn) + ", proto="
                + (protoVersion == PROTO_AUTO ? "auto" : protoVersion) + ", publications=" + publicationNames + "}";
    }

    /** Mutable builder of {@link LogicalReplicationOptions}; every setter returns {@code this}. */
    public static final class Builder {
        private final String slotName;
        private long startLsn;
        private int protoVersion = PROTO_AUTO;
        private final List<String> publicationNames = new ArrayList<>();
        private Boolean binary;
        private Boolean messages;
        private StreamingMode streaming;
        private Boolean twoPhase;
        private OriginFilter origin;
        private Duration statusInterval = Duration.ofSeconds(10);
        private boolean confirmIdleKeepalives = true;
        private Duration receiveTimeout;
        private boolean autoAcknowledge;
        private Duration readCoalescing = Duration.ofMillis(1);

        private Builder(String slotName) {
            this.slotName = slotName;
        }

        /**
         * Where to start. Default 0/0: the server resumes from the slot's confirmed_flush_lsn.
         *
         * @param lsn the LSN, or 0
         * @return this builder
         */
        public Builder startLsn(long lsn) { this.startLsn = lsn; return this; }

        /**
         * pgoutput proto_version: 1–4, or {@link #PROTO_AUTO} (default) for the highest the server supports.
         *
         * @param v the version
         * @return this builder
         * @throws PgClientException (INVALID_ARGUMENT) for any other value
         */
        public Builder protoVersion(int v) {
            if (v != PROTO_AUTO && (v < 1 || v > 4)) throw invalid("proto_version must be 1-4 or PROTO_AUTO, got " + v);
            this.protoVersion = v;
            return this;
        }

        /**
         * pgoutput publication_names; replaces earlier names. At least one is needed.
         *
         * @param names the publication names (case kept, quoted as needed)
         * @return this builder
         */
        public Builder publications(String... names) {
            publicationNames.clear();
            publicationNames.addAll(List.of(names));
            return this;
        }

        /**
         * pgoutput publication_names; replaces earlier names. At least one is needed.
         *
         * @param names the publication names (case kept, quoted as needed)
         * @return this builder
         */
        public Builder publications(List<String> names) {
            publicationNames.clear();
            publicationNames.addAll(names);
            return this;
        }

        /**
         * pgoutput binary (PostgreSQL 14+): send column values in binary form where the type allows it.
         *
         * @param v true or false; null (default) sends nothing (server default false)
         * @return this builder
         */
        public Builder binary(Boolean v) { this.binary = v; return this; }
        /**
         * pgoutput messages (PostgreSQL 14+): also send logical decoding messages.
         *
         * @param v true or false; null (default) sends nothing (server default false)
         * @return this builder
         */
        public Builder messages(Boolean v) { this.messages = v; return this; }
        /**
         * pgoutput streaming (PostgreSQL 14+; parallel on 16+): send large in-progress transactions in chunks.
         *
         * @param v the mode; null (default) sends nothing (server default off)
         * @return this builder
         */
        public Builder streaming(StreamingMode v) { this.streaming = v; return this; }
        /**
         * pgoutput two_phase (PostgreSQL 15+, proto_version 3+): decode prepared transactions at PREPARE TRANSACTION.
         *
         * @param v true or false; null (default) sends nothing
         * @return this builder
         */
        public Builder twoPhase(Boolean v) { this.twoPhase = v; return this; }
        /**
         * pgoutput origin (PostgreSQL 16+): skip changes that carry a replication origin.
         *
         * @param v the filter; null (default) sends nothing (server default any)
         * @return this builder
         */
        public Builder origin(OriginFilter v) { this.origin = v; return this; }

        /**
         * How often a Standby Status Update is sent without being asked; default 10 s (pg_recvlogical's --status-interval).
         *
         * @param d the interval, positive (checked when built)
         * @return this builder
         */
        public Builder statusInterval(Duration d) { this.statusInterval = Objects.requireNonNull(d); return this; }

        /**
         * Default true: when nothing delivered is unacknowledged and no transaction is open, a
         * keepalive's WAL end is confirmed so that idle slots advance.
         *
         * @param v whether idle keepalives are confirmed
         * @return this builder
         */
        public Builder confirmIdleKeepalives(boolean v) { this.confirmIdleKeepalives = v; return this; }

        /**
         * Fail with {@link ReplicationConnectionLostException} when nothing, not even a keepalive, arrives for this long.
         *
         * @param d the limit, positive; null (default) for none
         * @return this builder
         */
        public Builder receiveTimeout(Duration d) { this.receiveTimeout = d; return this; }

        /**
         * Acknowledge each transaction's end LSN as soon as the handler returns from its commit
         * callback (Commit, Stream Commit, Prepare, Commit/Rollback Prepared) and standalone
         * messages. Off by default: the application acknowledges what it has made durable.
         *
         * @param v whether to acknowledge automatically
         * @return this builder
         */
        public Builder autoAcknowledge(boolean v) { this.autoAcknowledge = v; return this; }

        /**
         * After a socket read under 32 KiB (the client is ahead of the walsender), reading pauses
         * this long, and the next read takes what arrived meanwhile in one go. The walsender sends
         * each change on its own: read as it comes, a backlog costs a wake-up, a receive call and
         * an ACK per 1-2 KiB, most of a drain's CPU. The first message after a quiet spell is read
         * at once; later ones wait at most this long. Default 1 ms; {@link Duration#ZERO} reads as data comes.
         *
         * @param d the pause, 0 to 100 ms and shorter than any receive timeout (checked when built)
         * @return this builder
         */
        public Builder readCoalescing(Duration d) { this.readCoalescing = Objects.requireNonNull(d); return this; }

        /**
         * {@return the immutable options}
         *
         * @throws IllegalArgumentException for an invalid slot name
         * @throws PgClientException (INVALID_ARGUMENT) for no publication, a non-positive interval or timeout,
         *     or a read coalescing pause over 100 ms or not shorter than the receive timeout
         */
        public LogicalReplicationOptions build() {
            return new LogicalReplicationOptions(this);
        }
    }
}
