package io.sovia.spi.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A byte FIFO of fixed capacity: a session's receive buffer (bytes arrived, not yet read) and its send
 * buffer (bytes written, not yet framed). Memory is taken on first use and grows by doubling as the bytes held
 * need it, up to the capacity, so an idle or request/response connection holds a few KiB where a full buffer
 * (1 MiB by default) would cost zeroing it at every new connection. Not thread-safe: the session lock guards it.
 */
final class ByteRing {
    private static final int FIRST_STORAGE = 8192;

    private final int capacity;
    /** Null until first used; its capacity is the storage's, at most {@link #capacity}. */
    private ByteBuffer bytes;
    /** The position stored at index 0 of {@link #bytes} when it was last made; positions index from it. */
    private long origin;
    private long head;
    private long tail;

    ByteRing(int capacity) {
        this.capacity = capacity;
    }

    int size() {
        return (int) (tail - head);
    }

    boolean isEmpty() {
        return tail == head;
    }

    int free() {
        return capacity - size();
    }

    int capacity() {
        return capacity;
    }

    /** The storage, made on first use; callers with nothing to copy must not ask (it would be made). */
    private ByteBuffer bytes() {
        if (bytes == null) {
            bytes = ByteBuffer.allocate(Math.min(capacity, FIRST_STORAGE));
            origin = head;
        }
        return bytes;
    }

    /** Storage for {@code more} bytes beyond those held, which must fit in the capacity: doubled until they do. */
    private ByteBuffer bytesFor(int more) {
        ByteBuffer b = bytes();
        int needed = size() + more;
        if (needed <= b.capacity()) {
            return b;
        }
        int grown = b.capacity();
        while (grown < needed) {
            grown = (int) Math.min(capacity, 2L * grown);
        }
        ByteBuffer larger = ByteBuffer.allocate(grown);
        copyTo(larger, 0, size());
        bytes = larger;
        origin = head;
        return larger;
    }

    /** Where {@code position} is stored. */
    private int index(long position) {
        return (int) ((position - origin) % bytes.capacity());
    }

    /** Appends up to {@code max} bytes from {@code src}, advancing it; returns how many. */
    int append(ByteBuffer src, int max) {
        int n = Math.min(Math.min(max, src.remaining()), free());
        appendAt(src, src.position(), n);
        src.position(src.position() + n);
        return n;
    }

    /** Appends {@code length} bytes at {@code offset} of {@code src}, which must fit. */
    void appendAt(ByteBuffer src, int offset, int length) {
        if (length == 0) {
            return;
        }
        ByteBuffer b = bytesFor(length);
        int index = index(tail);
        int first = Math.min(length, b.capacity() - index);
        b.put(index, src, offset, first);
        if (first < length) {
            b.put(0, src, offset + first, length - first);
        }
        tail += length;
    }

    /**
     * Appends up to {@code max} bytes of {@code file} read at {@code position}, as far as they fit without wrapping;
     * returns how many, or -1 when the file ends there.
     */
    int appendFrom(FileChannel file, long position, int max) throws IOException {
        int n = Math.min(max, free());
        if (n == 0) {
            return 0;
        }
        ByteBuffer b = bytesFor(n);
        int index = index(tail);
        int read = file.read(b.slice(index, Math.min(n, b.capacity() - index)), position);
        if (read > 0) {
            tail += read;
        }
        return read;
    }

    /** Moves up to {@code dst.remaining()} bytes into {@code dst}; returns how many. */
    int take(ByteBuffer dst) {
        int n = Math.min(size(), dst.remaining());
        copyTo(dst, dst.position(), n);
        dst.position(dst.position() + n);
        head += n;
        return n;
    }

    /** Moves up to {@code len} bytes into {@code dst} at {@code off}; returns how many. */
    int take(byte[] dst, int off, int len) {
        int n = Math.min(size(), len);
        if (n == 0) {
            return 0;
        }
        ByteBuffer b = bytes();
        int index = index(head);
        int first = Math.min(n, b.capacity() - index);
        b.get(index, dst, off, first);
        if (first < n) {
            b.get(0, dst, off + first, n - first);
        }
        head += n;
        return n;
    }

    /** Copies {@code length} oldest bytes to {@code dst} at {@code offset} without removing them. */
    void copyTo(ByteBuffer dst, int offset, int length) {
        if (length == 0) {
            return;
        }
        ByteBuffer b = bytes();
        int index = index(head);
        int first = Math.min(length, b.capacity() - index);
        dst.put(offset, b, index, first);
        if (first < length) {
            dst.put(offset + first, b, 0, length - first);
        }
    }

    /** Drops the {@code n} oldest bytes. */
    void skip(int n) {
        head += n;
    }

    /** Drops everything. */
    void clear() {
        head = tail;
    }
}
