package io.sovia.shm;

import io.sovia.spi.link.FrameRing;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;

import java.io.IOException;
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
 */
final class ShmSegment implements AutoCloseable {
    private static final int SEALS = NativeOs.F_SEAL_SHRINK | NativeOs.F_SEAL_GROW | NativeOs.F_SEAL_SEAL;

    private final NativeOs os;
    private final MappedByteBuffer buffer;
    private final int capacity;
    /** The creator's descriptor until {@link #close()}: -1 after, and always on the server. Owned by the holder. */
    private int fd;

    private ShmSegment(NativeOs os, MappedByteBuffer buffer, int capacity, int fd) {
        this.os = os;
        this.buffer = buffer;
        this.capacity = capacity;
        this.fd = fd;
    }

    /**
     * Creates, seals and maps a segment. Every page is allocated first, so a lack of memory fails here with an
     * IOException instead of a fault when the rings are first touched.
     */
    static ShmSegment create(int capacity) throws IOException {
        NativeOs os = NativeAccess.os();
        int length = ShmSegmentDescriptor.totalLength(capacity);
        int fd = os.memfdCreate("sovia-segment");
        try (FileChannel ch = channel(fd)) {
            os.allocate(fd, length);
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

    /** Closes the creator's descriptor (the mapping stays until collected): once handed over, or not needed. */
    @Override
    public void close() {
        if (fd >= 0) {
            os.closeFd(fd);
            fd = -1;
        }
    }
}
