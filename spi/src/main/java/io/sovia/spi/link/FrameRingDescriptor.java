package io.sovia.spi.link;

/**
 * Layout of one single-producer, single-consumer frame ring, in process memory (jvm link) or in a shared
 * segment (shm link).
 *
 * <pre>
 *   0                                                   capacity (a power of two)
 *   +---------------------------------------------------+
 *   | records: [int length][frame bytes][pad to 8] ...   |  length &lt; 0: padding to the end, skip
 *   +---------------------------------------------------+  capacity + 0
 *   | head: bytes consumed, long (consumer writes)       |  own cache line
 *   +---------------------------------------------------+  capacity + 64
 *   | tail: bytes published, long (producer writes)      |  own cache line
 *   +---------------------------------------------------+  capacity + 128
 *   | consumer armed: int, bits: 1 = ring the doorbell,  |  own cache line
 *   |   2 = wake the word, on the next publish           |
 *   | wake word: int, the producer adds 1 and wakes its  |  capacity + 132
 *   |   futex waiters; the consumer's threads sleep on it |
 *   +---------------------------------------------------+  capacity + 192
 *   | producer closed: int | consumer closed: int |     |
 *   | poll wanted: int, 1 = producer nudged the consumer  |  capacity + 200
 *   | space wanted: int, 1 = producer waits for room      |  capacity + 204
 *   | credit wanted: int, 1 = producer waits for window   |  capacity + 208
 *   +---------------------------------------------------+  capacity + 256 = total length
 * </pre>
 * Positions only grow; index = position &amp; (capacity - 1). A record never wraps: when it would not fit
 * before the end, the producer writes a padding record there and starts at index 0. It may also do so when the
 * ring is empty, to keep using the first pages.
 */
public final class FrameRingDescriptor {
    /** Record header: the frame length. */
    public static final int RECORD_HEADER = 4;
    /** Records start on this boundary. */
    public static final int ALIGNMENT = 8;
    /** Offsets in the trailer, relative to capacity. */
    public static final int HEAD = 0;
    public static final int TAIL = 64;
    public static final int ARMED = 128;
    public static final int WAKE_WORD = 132;
    public static final int PRODUCER_CLOSED = 192;
    public static final int CONSUMER_CLOSED = 196;
    public static final int POLL_WANTED = 200;
    public static final int SPACE_WANTED = 204;
    public static final int CREDIT_WANTED = 208;
    /** Bits of the armed word: how the producer wakes the consumer. */
    public static final int ARMED_DOORBELL = 1;
    public static final int ARMED_WORD = 2;
    /** Bytes after the record area. */
    public static final int TRAILER_LENGTH = 256;

    private FrameRingDescriptor() {
    }

    /** Total bytes for a ring with {@code capacity} bytes of records. */
    public static int totalLength(int capacity) {
        checkCapacity(capacity);
        return capacity + TRAILER_LENGTH;
    }

    /** A configured capacity, checked by {@link #checkCapacity}, with the property named in the message. */
    public static int configuredCapacity(String property, int capacity) {
        try {
            checkCapacity(capacity);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + "=" + capacity + ": " + e.getMessage(), e);
        }
        return capacity;
    }

    /** Rejects capacities that are not a power of two of at least 1 KiB. */
    public static void checkCapacity(int capacity) {
        if (capacity < 1024 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two >= 1024: " + capacity);
        }
    }

    /** Bytes a record of a {@code frameLength}-byte frame occupies. */
    public static int recordLength(int frameLength) {
        return (RECORD_HEADER + frameLength + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
