package io.pgrepl.client.internal;

import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.nio.charset.Charset;

/**
 * The part of {@link FrameView} that is not on the hot path: a window {@code [offset, offset +
 * length)} of a parent buffer, with every derived buffer, bulk access, write and reference count
 * passed to the parent. Derived buffers come from the parent, never wrap this reusable object, so
 * they survive the window being re-pointed.
 */
abstract class ParentView extends AbstractByteBuf {
    ByteBuf parent;
    int offset;
    int length;

    ParentView() {
        super(0);
    }

    final int idx(int index) {
        return offset + index;
    }

    private ByteBuf independent() {
        return parent.slice(offset, length).setIndex(readerIndex(), writerIndex());
    }

    // ---- shape

    @Override
    public int capacity() {
        return length;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        throw new UnsupportedOperationException("a frame view has a fixed capacity");
    }

    @Override
    public ByteBufAllocator alloc() {
        return parent.alloc();
    }

    @Override
    @SuppressWarnings("deprecation")
    public ByteOrder order() {
        return parent.order();
    }

    @Override
    public ByteBuf unwrap() {
        return parent;
    }

    @Override
    public boolean isDirect() {
        return parent.isDirect();
    }

    @Override
    public boolean isReadOnly() {
        return parent.isReadOnly();
    }

    @Override
    public boolean isContiguous() {
        return parent.isContiguous();
    }

    // ---- derived buffers: from the parent, never wrapping this reusable object

    @Override
    public ByteBuf slice(int index, int len) {
        checkIndex(index, len);
        return parent.slice(idx(index), len);
    }

    @Override
    public ByteBuf retainedSlice(int index, int len) {
        checkIndex(index, len);
        return parent.retainedSlice(idx(index), len);
    }

    @Override
    public ByteBuf duplicate() {
        return independent();
    }

    @Override
    public ByteBuf retainedDuplicate() {
        return independent().retain();
    }

    @Override
    public ByteBuf asReadOnly() {
        return independent().asReadOnly();
    }

    @Override
    public ByteBuf copy(int index, int len) {
        checkIndex(index, len);
        return parent.copy(idx(index), len);
    }

    @Override
    public int nioBufferCount() {
        return parent.nioBufferCount();
    }

    @Override
    public ByteBuffer nioBuffer(int index, int len) {
        checkIndex(index, len);
        return parent.nioBuffer(idx(index), len);
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int len) {
        checkIndex(index, len);
        return parent.internalNioBuffer(idx(index), len);
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int len) {
        checkIndex(index, len);
        return parent.nioBuffers(idx(index), len);
    }

    // ---- reference counting: the parent's

    @Override
    public int refCnt() {
        return parent.refCnt();
    }

    @Override
    public ByteBuf retain() {
        parent.retain();
        return this;
    }

    @Override
    public ByteBuf retain(int increment) {
        parent.retain(increment);
        return this;
    }

    @Override
    public ByteBuf touch() {
        return this;
    }

    @Override
    public ByteBuf touch(Object hint) {
        return this;
    }

    @Override
    public boolean release() {
        return parent.release();
    }

    @Override
    public boolean release(int decrement) {
        return parent.release(decrement);
    }

    // ---- element access (indices already checked by AbstractByteBuf)

    @Override
    protected byte _getByte(int index) {
        return parent.getByte(idx(index));
    }

    @Override
    protected short _getShort(int index) {
        return parent.getShort(idx(index));
    }

    @Override
    protected short _getShortLE(int index) {
        return parent.getShortLE(idx(index));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        return parent.getUnsignedMedium(idx(index));
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        return parent.getUnsignedMediumLE(idx(index));
    }

    @Override
    protected int _getInt(int index) {
        return parent.getInt(idx(index));
    }

    @Override
    protected int _getIntLE(int index) {
        return parent.getIntLE(idx(index));
    }

    @Override
    protected long _getLong(int index) {
        return parent.getLong(idx(index));
    }

    @Override
    protected long _getLongLE(int index) {
        return parent.getLongLE(idx(index));
    }

    @Override
    protected void _setByte(int index, int value) {
        parent.setByte(idx(index), value);
    }

    @Override
    protected void _setShort(int index, int value) {
        parent.setShort(idx(index), value);
    }

    @Override
    protected void _setShortLE(int index, int value) {
        parent.setShortLE(idx(index), value);
    }

    @Override
    protected void _setMedium(int index, int value) {
        parent.setMedium(idx(index), value);
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        parent.setMediumLE(idx(index), value);
    }

    @Override
    protected void _setInt(int index, int value) {
        parent.setInt(idx(index), value);
    }

    @Override
    protected void _setIntLE(int index, int value) {
        parent.setIntLE(idx(index), value);
    }

    @Override
    protected void _setLong(int index, long value) {
        parent.setLong(idx(index), value);
    }

    @Override
    protected void _setLongLE(int index, long value) {
        parent.setLongLE(idx(index), value);
    }

    // ---- bulk access

    /**
     * AbstractByteBuf decodes straight from {@code array()} at {@code arrayOffset() + index}
     * without a bounds check (it trusts {@code array()} to be this buffer's own), which for a view
     * would read the frames around this one.
     */
    @Override
    public String toString(int index, int len, Charset charset) {
        checkIndex(index, len);
        return super.toString(index, len, charset);
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int len) {
        checkIndex(index, len);
        parent.getBytes(idx(index), dst, dstIndex, len);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int len) {
        checkIndex(index, len);
        parent.getBytes(idx(index), dst, dstIndex, len);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        checkIndex(index, dst.remaining());
        parent.getBytes(idx(index), dst);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int len) throws IOException {
        checkIndex(index, len);
        parent.getBytes(idx(index), out, len);
        return this;
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int len) throws IOException {
        checkIndex(index, len);
        return parent.getBytes(idx(index), out, len);
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int len) throws IOException {
        checkIndex(index, len);
        return parent.getBytes(idx(index), out, position, len);
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int len) {
        checkIndex(index, len);
        parent.setBytes(idx(index), src, srcIndex, len);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int len) {
        checkIndex(index, len);
        parent.setBytes(idx(index), src, srcIndex, len);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        checkIndex(index, src.remaining());
        parent.setBytes(idx(index), src);
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int len) throws IOException {
        checkIndex(index, len);
        return parent.setBytes(idx(index), in, len);
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int len) throws IOException {
        checkIndex(index, len);
        return parent.setBytes(idx(index), in, len);
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int len) throws IOException {
        checkIndex(index, len);
        return parent.setBytes(idx(index), in, position, len);
    }
}
