package io.pgrepl.flink.internal;

/** The task thread's handle on the stream the fetcher thread runs: slot confirmations and figures. */
final class StreamLink {
    private volatile StreamFetch fetch;
    /** A confirmation asked for before the stream (re)opened: sent once it runs. */
    private volatile long pendingConfirm;

    void attach(StreamFetch f) {
        fetch = f;
        if (f != null && pendingConfirm != 0) f.confirm(pendingConfirm);
    }

    /** Confirms the slot up to {@code lsn} (the position of a completed checkpoint). */
    void confirm(long lsn) {
        pendingConfirm = lsn;
        StreamFetch f = fetch;
        if (f != null) f.confirm(lsn);
    }

    /** {@return the running stream's fetch, or null} */
    StreamFetch fetch() {
        return fetch;
    }
}
