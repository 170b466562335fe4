package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;

/**
 * A reusable window onto one frame's payload inside the cumulation buffer: a slice whose parent
 * and bounds are re-pointed for every frame, so the frame path allocates nothing. (Netty 4.2's
 * default adaptive allocator has no pooled derived buffers, so {@code retainedSlice} would
 * allocate per frame.)
 *
 * <p>The parent must have a backing array (the decoder copies a direct read into a heap
 * cumulation of its own): the getters read that array, so the call sites in the decoders see one
 * class, this one, with no second virtual call to whatever buffer class the allocator, the
 * cumulator or a sampled leak detector produced. A parent of varying class made C2 throw away and
 * recompile everything that had inlined these getters.
 *
 * <p>Bounds are hard, as with a slice: capacity is the payload length, so an absolute read past
 * the frame fails instead of reaching the next frame. Reference counting is the parent's, as with
 * a non-retained slice. Like the frame itself, the view is valid only during the sink's call
 * unless retained; the hot getters do not check the parent's reference count.
 */
final class FrameView extends ParentView {
    private byte[] array;
    /** Index in {@link #array} of the payload's first byte. */
    private int base;

    /**
     * Points the view at {@code length} bytes of {@code parent} from {@code offset}.
     *
     * @throws UnsupportedOperationException if the parent has no backing array
     */
    FrameView reset(ByteBuf parent, int offset, int length) {
        this.parent = parent;
        this.offset = offset;
        this.length = length;
        this.array = parent.array();
        this.base = parent.arrayOffset() + offset;
        maxCapacity(length);
        setIndex(0, length);
        markReaderIndex();
        markWriterIndex();
        return this;
    }

    @Override
    public boolean hasArray() {
        return true;
    }

    @Override
    public byte[] array() {
        return array;
    }

    @Override
    public int arrayOffset() {
        return base;
    }

    @Override
    public boolean hasMemoryAddress() {
        return false;
    }

    @Override
    public long memoryAddress() {
        throw new UnsupportedOperationException("a frame view is backed by an array");
    }

    // ---- hot getters: one bounds check against the frame, then the array (which Java checks too).
    // Each is small enough for C2 to inline at a call site that sees only this class.

    private int at(int index, int width) {
        if (index < 0 || index > length - width) throw outside(index, width);
        return base + index;
    }

    private IndexOutOfBoundsException outside(int index, int width) {
        return new IndexOutOfBoundsException("index " + index + " + " + width + " outside frame of " + length);
    }

    private int readAt(int width) {
        int r = readerIndex();
        if (r > writerIndex() - width) throw pastWriter(r, width);
        readerIndex(r + width);
        return base + r;
    }

    private IndexOutOfBoundsException pastWriter(int r, int width) {
        return new IndexOutOfBoundsException("readerIndex " + r + " + " + width + " exceeds writerIndex " + writerIndex());
    }

    private static short s16(byte[] a, int p) {
        return (short) (a[p] << 8 | a[p + 1] & 0xff);
    }

    private static int s32(byte[] a, int p) {
        return a[p] << 24 | (a[p + 1] & 0xff) << 16 | (a[p + 2] & 0xff) << 8 | a[p + 3] & 0xff;
    }

    private static long s64(byte[] a, int p) {
        return (long) s32(a, p) << 32 | s32(a, p + 4) & 0xffffffffL;
    }

    @Override
    public byte getByte(int index) {
        return array[at(index, 1)];
    }

    @Override
    public short getUnsignedByte(int index) {
        return (short) (array[at(index, 1)] & 0xff);
    }

    @Override
    public short getShort(int index) {
        return s16(array, at(index, 2));
    }

    @Override
    public int getUnsignedShort(int index) {
        return s16(array, at(index, 2)) & 0xffff;
    }

    @Override
    public int getInt(int index) {
        return s32(array, at(index, 4));
    }

    @Override
    public long getUnsignedInt(int index) {
        return s32(array, at(index, 4)) & 0xffffffffL;
    }

    @Override
    public long getLong(int index) {
        return s64(array, at(index, 8));
    }

    @Override
    public byte readByte() {
        return array[readAt(1)];
    }

    @Override
    public short readUnsignedByte() {
        return (short) (array[readAt(1)] & 0xff);
    }

    @Override
    public short readShort() {
        return s16(array, readAt(2));
    }

    @Override
    public int readUnsignedShort() {
        return s16(array, readAt(2)) & 0xffff;
    }

    @Override
    public int readInt() {
        return s32(array, readAt(4));
    }

    @Override
    public long readUnsignedInt() {
        return s32(array, readAt(4)) & 0xffffffffL;
    }

    @Override
    public long readLong() {
        return s64(array, readAt(8));
    }

    @Override
    public int forEachByte(int index, int len, io.netty.util.ByteProcessor processor) {
        checkIndex(index, len);
        int i = parent.forEachByte(idx(index), len, processor);
        return i < 0 ? i : i - offset;
    }

    @Override
    public int forEachByteDesc(int index, int len, io.netty.util.ByteProcessor processor) {
        checkIndex(index, len);
        int i = parent.forEachByteDesc(idx(index), len, processor);
        return i < 0 ? i : i - offset;
    }
}
