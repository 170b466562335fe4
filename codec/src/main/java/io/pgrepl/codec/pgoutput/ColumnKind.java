package io.pgrepl.codec.pgoutput;

/**
 * What a TupleData column carries. {@link #UNCHANGED_TOAST} and {@link #ABSENT} are not SQL NULL:
 * the first is an out-of-line value the server did not resend, the second a non-key column of a
 * key-only ('K') old tuple, which the server fills with 'n' although it knows nothing about it.
 */
public enum ColumnKind {
    /** 'n': SQL NULL. */
    NULL('n'),
    /** 'u': unchanged TOASTed value, not sent. Keep the previous value; never write NULL. */
    UNCHANGED_TOAST('u'),
    /** 't': value in the type's text output format. */
    TEXT('t'),
    /** 'b': value in the type's binary send format (PG14+, option binary). */
    BINARY('b'),
    /** A non-key column of a 'K' tuple: no information at all (sent as 'n'). */
    ABSENT('n');

    private final char wireByte;

    ColumnKind(char wireByte) {
        this.wireByte = wireByte;
    }

    /**
     * The byte this kind is sent as on the wire.
     *
     * @return 't', 'b', 'n' or 'u' ({@link #ABSENT} is sent as 'n')
     */
    public char wireByte() {
        return wireByte;
    }

    /**
     * Whether value bytes come with this kind.
     *
     * @return true for {@link #TEXT} and {@link #BINARY}
     */
    public boolean hasValue() {
        return this == TEXT || this == BINARY;
    }
}
