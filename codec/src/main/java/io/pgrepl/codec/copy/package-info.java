/**
 * The COPY TO STDOUT sub-protocol's rows (CopyOutResponse, CopyData, CopyDone), decoded in place
 * into the same {@link io.pgrepl.codec.pgoutput.TupleView} that streamed inserts use: text format
 * (tab-separated, {@code \N} for NULL, backslash escapes) and binary format (signature, header,
 * tuples, trailer). Text values are handed out unescaped, i.e. exactly the type output function's
 * text that pgoutput sends; binary values are the send function's bytes, as pgoutput's binary mode.
 */
package io.pgrepl.codec.copy;
