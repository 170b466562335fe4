/**
 * pgoutput (protocol versions 1 to 4) decoding with reusable flyweight views.
 *
 * <pre>{@code
 * PgOutputDecoder decoder = new PgOutputDecoder();          // one per stream; owns PgOutputState
 * decoder.decode(xlog.buffer(), xlog.dataIndex(), xlog.dataLength(), new PgOutputHandler() {
 *     public void onInsert(InsertMessage m) {
 *         TupleView row = m.newTuple();
 *         long id = row.int8(0);                             // no allocation
 *         if (row.isUnchangedToast(2)) { ... }                // not NULL
 *     }
 * });
 * }</pre>
 *
 * Views are valid only inside the callback; {@link io.pgrepl.codec.pgoutput.record.PgOutputRecords}
 * copies them into immutable records. Bad bytes raise {@link io.pgrepl.codec.MalformedMessageException}
 * ({@link io.pgrepl.codec.pgoutput.UnknownMessageTypeException} and
 * {@link io.pgrepl.codec.pgoutput.UnknownRelationException} are subclasses a stream layer may treat
 * specially).
 */
package io.pgrepl.codec.pgoutput;
