package io.sovia.shm;

import io.sovia.spi.link.FrameRing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;

/**
 * One connection's shared memory ({@link ShmSegmentDescriptor}), mapped by both processes. The client
 * creates the file; the server maps it and unlinks it at once, so the memory lives exactly as long as
 * the two mappings and nothing is left in /dev/shm after a crash.
 */
final class ShmSegment {
    private final MappedByteBuffer buffer;
    private final int capacity;

    private ShmSegment(MappedByteBuffer buffer, int capacity) {
        this.buffer = buffer;
        this.capacity = capacity;
    }

    /**
     * Creates and maps a segment. Every page is written first, so a full /dev/shm fails here with an
     * IOException instead of a fault when the rings are first touched.
     */
    static ShmSegment create(Path file, int capacity) throws IOException {
        int length = ShmSegmentDescriptor.totalLength(capacity);
        try (FileChannel ch = FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(ShmDirectory.FILE))) {
            ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
            for (long position = 0; position < length; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), length - position));
                position += ch.write(zeros, position);
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
            map.order(ByteOrder.LITTLE_ENDIAN);
            map.putInt(ShmSegmentDescriptor.VERSION_OFFSET, ShmSegmentDescriptor.VERSION);
            map.putInt(ShmSegmentDescriptor.CAPACITY_OFFSET, capacity);
            map.putLong(ShmSegmentDescriptor.MAGIC_OFFSET, ShmSegmentDescriptor.MAGIC);
            return new ShmSegment(map, capacity);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }

    /** Maps a segment the client made (it must be this user's, 0600, well formed), then unlinks it. */
    static ShmSegment open(Path file, int uid) throws IOException {
        try {
            if ((Integer) Files.getAttribute(file, "unix:uid") != uid
                    || !Files.getPosixFilePermissions(file).equals(ShmDirectory.FILE)) {
                throw new IOException(file + " is not a 0600 file of uid " + uid);
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long size = ch.size();
                if (size < ShmSegmentDescriptor.HEADER_LENGTH) {
                    throw new IOException(file + " is too short for a segment");
                }
                MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
                map.order(ByteOrder.LITTLE_ENDIAN);
                int capacity = map.getInt(ShmSegmentDescriptor.CAPACITY_OFFSET);
                if (map.getLong(ShmSegmentDescriptor.MAGIC_OFFSET) != ShmSegmentDescriptor.MAGIC
                        || map.getInt(ShmSegmentDescriptor.VERSION_OFFSET) != ShmSegmentDescriptor.VERSION
                        || capacity < 1024 || Integer.bitCount(capacity) != 1
                        || size != ShmSegmentDescriptor.totalLength(capacity)) {
                    throw new IOException(file + " is not a Sovia segment of version " + ShmSegmentDescriptor.VERSION);
                }
                return new ShmSegment(map, capacity);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    int capacity() {
        return capacity;
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
}
