package io.sovia.shm;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.link.FrameRing;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One connection's shared memory ({@link ShmSegmentDescriptor}), mapped by both processes: an anonymous
 * memory file ({@code memfd}) the client makes, sealed so that it can never shrink, and hands to the server as
 * a descriptor attached to its hello. A peer of the same user could truncate a plain shared file under our
 * mapping, and the next access would raise SIGBUS, which the JVM turns into an InternalError wherever the
 * thread happens to be; a sealed file cannot be truncated by anyone, so the server checks the seal before it
 * maps. The memory has no name: it lives exactly as long as the mappings and the descriptors in flight, and
 * nothing is left anywhere after a crash.
 *
 * <p>Pages are allocated when first touched, and a connection of small messages touches only the first pages of
 * each ring ({@code FrameRing} starts again at the front when its ring is empty), so an idle or request/response
 * connection holds a few pages, a stream the whole rings. A memory file has no size limit of its own: running out
 * of memory is the cgroup's, as for the heap. When both ends are done ({@link #release}), the second frees the
 * memory at once; the mappings themselves go when collected, holding only address space by then.
 */
final class ShmSegment implements AutoCloseable {
    private static final int SEALS = NativeOs.F_SEAL_SHRINK | NativeOs.F_SEAL_GROW | NativeOs.F_SEAL_SEAL;
    private static final VarHandle INTS =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final NativeOs os;
    private final MappedByteBuffer buffer;
    private final int capacity;
    /** The creator's descriptor until {@link #close()}: -1 after, and always on the server. Owned by the holder. */
    private int fd;
    /** Whether this end released the segment's current connection; under this. */
    private boolean released;

    private ShmSegment(NativeOs os, MappedByteBuffer buffer, int capacity, int fd) {
        this.os = os;
        this.buffer = buffer;
        this.capacity = capacity;
        this.fd = fd;
    }

    /** Creates, sizes, seals and maps a segment; its pages are allocated as they are touched. */
    static ShmSegment create(int capacity) throws IOException {
        NativeOs os = NativeAccess.os();
        int length = ShmSegmentDescriptor.totalLength(capacity);
        int fd = os.memfdCreate("sovia-segment");
        try (FileChannel ch = channel(fd)) {
            os.setLength(fd, length);
            os.addSeals(fd, SEALS);
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
            map.order(ByteOrder.LITTLE_ENDIAN);
            map.putInt(ShmSegmentDescriptor.VERSION_OFFSET, ShmSegmentDescriptor.VERSION);
            map.putInt(ShmSegmentDescriptor.CAPACITY_OFFSET, capacity);
            map.putLong(ShmSegmentDescriptor.MAGIC_OFFSET, ShmSegmentDescriptor.MAGIC);
            return new ShmSegment(os, map, capacity, fd);
        } catch (IOException | RuntimeException e) {
            os.closeFd(fd);
            throw e;
        }
    }

    /**
     * Maps the segment a client handed over as {@code fd} (received with its hello, closed here): it must be
     * sealed against shrinking and well formed, else an IOException says which.
     */
    static ShmSegment open(int fd) throws IOException {
        NativeOs os = NativeAccess.os();
        try {
            if ((os.seals(fd) & NativeOs.F_SEAL_SHRINK) == 0) {
                throw new IOException("the segment is not sealed against shrinking");
            }
            try (FileChannel ch = channel(fd)) {
                long size = ch.size();
                if (size < ShmSegmentDescriptor.HEADER_LENGTH || size > Integer.MAX_VALUE) {
                    throw new IOException("a segment of " + size + " bytes");
                }
                MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
                map.order(ByteOrder.LITTLE_ENDIAN);
                int capacity = map.getInt(ShmSegmentDescriptor.CAPACITY_OFFSET);
                if (map.getLong(ShmSegmentDescriptor.MAGIC_OFFSET) != ShmSegmentDescriptor.MAGIC
                        || map.getInt(ShmSegmentDescriptor.VERSION_OFFSET) != ShmSegmentDescriptor.VERSION
                        || capacity < 1024 || Integer.bitCount(capacity) != 1
                        || size != ShmSegmentDescriptor.totalLength(capacity)) {
                    throw new IOException("not a Sovia segment of version " + ShmSegmentDescriptor.VERSION);
                }
                return new ShmSegment(os, map, capacity, -1);
            }
        } finally {
            os.closeFd(fd);
        }
    }

    /** The memory file through the descriptor's own /proc link: a channel the JDK can size, write and map. */
    private static FileChannel channel(int fd) throws IOException {
        return FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    int capacity() {
        return capacity;
    }

    /** The creator's descriptor, to hand to the server; -1 once closed. */
    int fd() {
        return fd;
    }

    FrameRing clientToServer() {
        return ring(ShmSegmentDescriptor.clientToServer());
    }

    FrameRing serverToClient() {
        return ring(ShmSegmentDescriptor.serverToClient(capacity));
    }

    private FrameRing ring(int offset) {
        return new FrameRing(buffer.slice(offset, ShmSegmentDescriptor.ringLength(capacity)), capacity);
    }

    /**
     * This end is done with the segment: nothing here touches its rings again. The second end to say so, or the
     * survivor of a peer that died ({@code peerGone}), frees its memory now; a peer that never says so (an older
     * agent) leaves it to the collection of the mappings.
     */
    void release(boolean peerGone) {
        int before = markReleased();
        if (before == 1 || before == 0 && peerGone) {
            discard();
        }
    }

    /**
     * This end is done with the segment's current connection and keeps the segment for the next one
     * ({@link ShmChannelPool}): its memory stays, touched pages and all.
     */
    void releaseKept() {
        markReleased();
    }

    /**
     * Ends this end's use, once per connection: the creator's descriptor goes. The closers before this one, or -1
     * if this end had released already.
     */
    private synchronized int markReleased() {
        if (released) {
            return -1;
        }
        released = true;
        close();
        return (int) INTS.getAndAdd(buffer, ShmSegmentDescriptor.CLOSERS_OFFSET, 1);
    }

    /** Whether both ends released the current connection, so nobody touches the rings until a reset. */
    boolean bothReleased() {
        return (int) INTS.getVolatile(buffer, ShmSegmentDescriptor.CLOSERS_OFFSET) >= 2;
    }

    /**
     * The client starts the segment's next connection (only once {@link #bothReleased()}): empty rings, no flags,
     * no closers. The hello that follows, a system call, publishes this to the server.
     */
    synchronized void resetForReuse() {
        ShmSegmentDescriptor.resetRings(buffer, capacity);
        INTS.setVolatile(buffer, ShmSegmentDescriptor.CLOSERS_OFFSET, 0);
        released = false;
    }

    /** The server claimed the segment's next connection ({@link #resetForReuse()} on the client). */
    synchronized void reopened() {
        released = false;
    }

    /** Frees the memory now; for a segment nobody will touch again. */
    void discard() {
        try {
            os.discard(JdkNio.address(buffer), buffer.capacity());
        } catch (IOException e) {
            SoviaLog.warnCounted("shm-discard", "cannot free a closed connection's shared memory early", e);
        }
    }

    /** Closes the creator's descriptor (the mapping stays until collected): once handed over, or not needed. */
    @Override
    public void close() {
        if (fd >= 0) {
            os.closeFd(fd);
            fd = -1;
        }
    }
}
