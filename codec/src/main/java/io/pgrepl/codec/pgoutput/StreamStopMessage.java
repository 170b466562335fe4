package io.pgrepl.codec.pgoutput;

/** Stream Stop 'E': no fields; ends the current stream block. */
public final class StreamStopMessage extends PgOutputMessage {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_STOP;
    }
}
