package io.sovia.shm;

import io.sovia.spi.link.FrameRingDescriptor;

/**
 * Layout of one connection's shared segment: a header, then a frame ring per direction (each laid out
 * by {@link FrameRingDescriptor}).
 *
 * <pre>
 *   0        8        12       16       20              64
 *   +--------+--------+--------+--------+---------------+
 *   | magic  |version |capacity|closers | reserved      |  header, 64 bytes
 *   +--------+--------+--------+------------------------+  64
 *   | ring client -> server  (FrameRingDescriptor)      |
 *   +---------------------------------------------------+  64 + ring length
 *   | ring server -> client  (FrameRingDescriptor)      |
 *   +---------------------------------------------------+  64 + 2 * ring length
 * </pre>
 * magic: the ASCII bytes "SOVIASHM" as a little-endian long; capacity: record bytes of each ring; closers: ends
 * that are done with the segment (0, 1, 2), added atomically, so the second one frees its memory.
 */
final class ShmSegmentDescriptor {
    static final long MAGIC = 0x4d48534149564f53L;
    static final int VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int CAPACITY_OFFSET = 12;
    static final int CLOSERS_OFFSET = 16;
    static final int HEADER_LENGTH = 64;

    private ShmSegmentDescriptor() {
    }

    static int ringLength(int capacity) {
        return FrameRingDescriptor.totalLength(capacity);
    }

    static int clientToServer() {
        return HEADER_LENGTH;
    }

    static int serverToClient(int capacity) {
        return HEADER_LENGTH + ringLength(capacity);
    }

    /** Empties both rings of a segment nobody uses now: positions and flags back to zero; records stay. */
    static void resetRings(java.nio.ByteBuffer segment, int capacity) {
        for (int ring : new int[] {clientToServer(), serverToClient(capacity)}) {
            for (int i = 0; i < FrameRingDescriptor.TRAILER_LENGTH; i += Long.BYTES) {
                segment.putLong(ring + capacity + i, 0);
            }
        }
    }

    static int totalLength(int capacity) {
        return HEADER_LENGTH + 2 * ringLength(capacity);
    }
}
