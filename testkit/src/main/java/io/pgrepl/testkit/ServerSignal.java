package io.pgrepl.testkit;

/** Signals a test may send to one of a server's processes, e.g. to make a walsender go silent. */
public enum ServerSignal {
    /** SIGSTOP: the process freezes, its sockets stay open (a silent peer). */
    STOP,
    /** SIGCONT: a stopped process resumes. */
    CONT,
    /** SIGTERM: what pg_terminate_backend sends. */
    TERM
}
