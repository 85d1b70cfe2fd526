package io.sovia.spi.link;

import io.sovia.spi.engine.FrameHandler;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static io.sovia.spi.link.FrameRingDescriptor.ARMED;
import static io.sovia.spi.link.FrameRingDescriptor.CONSUMER_CLOSED;
import static io.sovia.spi.link.FrameRingDescriptor.CREDIT_WANTED;
import static io.sovia.spi.link.FrameRingDescriptor.HEAD;
import static io.sovia.spi.link.FrameRingDescriptor.POLL_WANTED;
import static io.sovia.spi.link.FrameRingDescriptor.PRODUCER_CLOSED;
import static io.sovia.spi.link.FrameRingDescriptor.RECORD_HEADER;
import static io.sovia.spi.link.FrameRingDescriptor.SPACE_WANTED;
import static io.sovia.spi.link.FrameRingDescriptor.TAIL;
import static io.sovia.spi.link.FrameRingDescriptor.WAKE_WORD;

/**
 * A single-producer, single-consumer ring of frames over a direct buffer laid out by
 * {@link FrameRingDescriptor}. The producer claims, writes in place and commits (one copy); the consumer
 * reads frames in place. Ordering: the producer publishes with a release store of the tail, the consumer
 * frees space with a release store of the head. A producer that finds the ring full asks to be told of room
 * ({@link #takeSpaceWanted()}), as a sleeping consumer asks to be told of frames ({@link #armed}).
 */
public final class FrameRing {
    /**
     * Past this index, a claim that finds the ring empty pads to the end and starts again at index 0, so a
     * connection of small messages keeps using its first pages: the rest of a shared ring is never touched, and
     * so never allocated, and what is touched stays in cache. Only streams fill a ring.
     */
    static final int REWIND_INDEX = 4096;

    private final ByteBuffer buffer;
    private final RingTrailer trailer;
    private final int capacity;
    private final int mask;
    private final int maxFrameLength;
    /** Whether an empty ring starts again at the front (see {@link #REWIND_INDEX}). */
    private final boolean rewinds;

    /** Producer side only: the tail after the last commit, and the record being written. */
    private long producerTail;
    /** Producer side only: the consumer's head when last read; the real one is read only when this one
     *  shows too little room, so the producer does not pull the consumer's cache line on every claim. */
    private long headCache;
    private long claimPosition = -1;
    private int claimRecordLength;
    /** Consumer side only. */
    private long consumerHead;
    /**
     * Consumer side only: the producer published something no producer of this format writes (a length or
     * position out of bounds). A peer of the same user can write anything into a shared segment; the ring
     * then stays unread for good and the link treats its peer as gone.
     */
    private boolean corrupt;

    /** A ring over {@code buffer}, which must be direct and {@link FrameRingDescriptor#totalLength} long. */
    public FrameRing(ByteBuffer buffer, int capacity) {
        this(buffer, capacity, true);
    }

    private FrameRing(ByteBuffer buffer, int capacity, boolean rewinds) {
        this.rewinds = rewinds;
        FrameRingDescriptor.checkCapacity(capacity);
        if (!buffer.isDirect() || buffer.capacity() < FrameRingDescriptor.totalLength(capacity)) {
            throw new IllegalArgumentException("need a direct buffer of " + FrameRingDescriptor.totalLength(capacity));
        }
        this.buffer = buffer.order(ByteOrder.LITTLE_ENDIAN);
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxFrameLength = capacity / 4 - RECORD_HEADER;
        this.trailer = new RingTrailer(buffer, capacity);
        this.producerTail = trailer.getLongAcquire(TAIL);
        this.consumerHead = trailer.getLongAcquire(HEAD);
        this.headCache = consumerHead;
    }

    /** A ring in freshly allocated direct memory. */
    public static FrameRing allocate(int capacity) {
        return new FrameRing(memory(capacity), capacity);
    }

    /**
     * A ring in fresh direct memory that never starts again at the front: a queue whose consumer may lag its
     * producer by many frames (a lossy link's arrivals). A rewind leaves the padding to the end in the ring until the
     * consumer passes it, so a producer that rewinds at index i has only i bytes until then: the eth path's
     * queues, filled faster than they were polled, held 182 frames where 708 fit, and dropped the rest.
     */
    public static FrameRing allocateQueue(int capacity) {
        return new FrameRing(memory(capacity), capacity, false);
    }

    /**
     * Memory for a ring of {@code capacity} in this process, its trailer zeroed and its frame area left as it comes
     * ({@link NativeOs#allocate}): the consumer reads only what the producer wrote, between head and tail. Without the
     * native calls, or when {@code malloc} fails, {@code allocateDirect}, which zeroes it all (and whose limit
     * makes the JVM collect, which frees unreachable rings of either kind).
     */
    private static ByteBuffer memory(int capacity) {
        int length = FrameRingDescriptor.totalLength(capacity);
        NativeOs os = NativeAccess.osIfAvailable();
        ByteBuffer memory = os != null ? os.allocate(length, capacity) : null;
        return memory != null ? memory : ByteBuffer.allocateDirect(length);
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    /** The bytes of frames (records, padding) the ring holds at most. */
    public int capacity() {
        return capacity;
    }

    public int maxFrameLength() {
        return maxFrameLength;
    }

    /** Producer: room for a {@code length}-byte frame; returns its offset in {@link #buffer()} or -1 when full. */
    public int claim(int length) {
        if (length > maxFrameLength || length < 0) {
            throw new IllegalArgumentException("frame of " + length + " bytes, at most " + maxFrameLength);
        }
        int recordLength = FrameRingDescriptor.recordLength(length);
        long tail = producerTail;
        int index = (int) tail & mask;
        int toEnd = capacity - index;
        int padding = toEnd < recordLength ? toEnd : 0;
        if (padding == 0 && rewinds && index >= REWIND_INDEX && toEnd + recordLength <= capacity) {
            headCache = trailer.getLongAcquire(HEAD);
            if (headCache == tail) {
                padding = toEnd;
            }
        }
        if (capacity - (tail - headCache) < padding + recordLength) {
            headCache = trailer.getLongAcquire(HEAD);
            if (capacity - (tail - headCache) < padding + recordLength) {
                // ask the consumer to ring when it frees room, then look once more: it may have just done so
                trailer.putIntVolatile(SPACE_WANTED, 1);
                RingTrailer.fullFence();
                headCache = trailer.getLongAcquire(HEAD);
                if (capacity - (tail - headCache) < padding + recordLength) {
                    return -1;
                }
            }
        }
        if (padding > 0) {
            buffer.putInt(index, -padding);
            tail += padding;
            index = 0;
        }
        buffer.putInt(index, length);
        claimPosition = tail;
        claimRecordLength = recordLength;
        return index + RECORD_HEADER;
    }

    /** Producer: publishes the claimed frame. */
    public void commit() {
        producerTail = claimPosition + claimRecordLength;
        claimPosition = -1;
        trailer.putLongRelease(TAIL, producerTail);
    }

    /** Producer: gives up the claimed frame; nothing past the published tail was seen, so the next claim writes over it. */
    public void abandon() {
        claimPosition = -1;
    }

    /**
     * Consumer: hands up to {@code limit} frames to {@code handler}, stopping at one it leaves; returns how many it
     * took. Every position and length the producer wrote is checked before use; on the first that no producer of
     * this format writes, the ring is {@linkplain #isCorrupt() corrupt} and yields nothing more.
     */
    public int poll(FrameHandler handler, int limit) {
        long tail = trailer.getLongAcquire(TAIL);
        long head = consumerHead;
        int frames = 0;
        if (corrupt || tail - head > capacity) {
            corrupt = true;
            return 0;
        }
        try {
            while (head < tail && frames < limit) {
                int index = (int) head & mask;
                int length = index <= capacity - RECORD_HEADER ? buffer.getInt(index) : Integer.MIN_VALUE;
                if (length < 0) {
                    // padding runs exactly to the end of the ring, and is published like a record
                    if ((long) index - length != capacity || head - length > tail) {
                        corrupt = true;
                        return frames;
                    }
                    head -= length;
                    continue;
                }
                int recordLength = FrameRingDescriptor.recordLength(length);
                if (length > maxFrameLength || index + recordLength > capacity || head + recordLength > tail) {
                    corrupt = true;
                    return frames;
                }
                if (!handler.onFrame(buffer, index + RECORD_HEADER, length)) {
                    break;
                }
                head += recordLength;
                frames++;
            }
        } finally {
            consumerHead = head;
            trailer.putLongRelease(HEAD, head);
        }
        return frames;
    }

    /** Producer: whether the consumer has taken every committed frame. */
    public boolean isDrained() {
        headCache = trailer.getLongAcquire(HEAD);
        return headCache == producerTail;
    }

    /** Consumer: whether a frame is published and not yet polled. A volatile read, to pair with arming. */
    public boolean hasFrames() {
        return !corrupt && trailer.getLongVolatile(TAIL) > consumerHead;
    }

    /** Consumer: whether the producer wrote what no producer of this format writes (see {@link #poll}). */
    public boolean isCorrupt() {
        return corrupt;
    }

    /**
     * Consumer: asks the producer to wake it after publishing, in the ways of {@code how} (bits
     * {@link FrameRingDescriptor#ARMED_DOORBELL}, {@link FrameRingDescriptor#ARMED_WORD}); 0 stops asking.
     */
    public void armed(int how) {
        trailer.putIntVolatile(ARMED, how);
    }

    /**
     * Producer: how the consumer asked to be woken (0: it did not), taking the request, so the commits that follow
     * before the consumer is awake do not wake it again; the consumer asks anew before it sleeps again. Fenced so a
     * preceding commit is visible first.
     */
    public int takeArmed() {
        RingTrailer.fullFence();
        return take(ARMED);
    }

    /** Producer: how the consumer asks to be woken now, leaving the request. */
    public int armedHow() {
        return trailer.getIntVolatile(ARMED);
    }

    /** The address of the ring's wake word ({@link FrameRingDescriptor#WAKE_WORD}), for a futex. */
    public long wakeWordAddress() {
        return trailer.address(WAKE_WORD);
    }

    /** Changes the wake word, so a consumer about to sleep on its old value does not; then wake its waiters. */
    public void bumpWakeWord() {
        trailer.getAndAddInt(WAKE_WORD, 1);
    }

    /**
     * Consumer, after a poll that took frames: whether the producer found the ring full since it last asked and
     * half the ring is free now, taking the request; the caller then wakes the producer, which otherwise learns of
     * the room only when it looks again. Not before half is free, as a kernel wakes a writer once half its buffer
     * is: a consumer that rang at every frame it took had the producer add one frame and ask again, a wake-up per
     * frame (14,000 a second in an FTP upload). Half the ring holds the largest frame and its padding.
     */
    public boolean takeSpaceWanted() {
        RingTrailer.fullFence();
        return trailer.getLongVolatile(TAIL) - consumerHead <= capacity / 2 && takeFlag(SPACE_WANTED);
    }

    /** Producer: tells the consumer's engine that its writer waits for window credit. */
    public void wantCredit() {
        trailer.putIntRelease(CREDIT_WANTED, 1);
    }

    /** Consumer: whether the producer's writer waits for credit, taking the request; cheap when it does not. */
    public boolean takeCreditWanted() {
        return takeFlag(CREDIT_WANTED);
    }

    /**
     * Consumer: whether the producer's writer waits for credit, leaving the request. The fence orders this after the
     * consumer's own earlier commits, so a producer that asks later finds them when it looks before sleeping.
     */
    public boolean creditWanted() {
        RingTrailer.fullFence();
        return trailer.getIntVolatile(CREDIT_WANTED) != 0;
    }

    /** Producer: asks the consumer's side to poll although nobody there calls (a nudge). */
    public void wantPoll() {
        trailer.putIntVolatile(POLL_WANTED, 1);
    }

    /** Consumer: whether the producer asked for a poll since the last call; clears the request. */
    public boolean takePollWanted() {
        return takeFlag(POLL_WANTED);
    }

    /** Clears the flag at {@code offset} in the trailer; whether it was set. */
    private boolean takeFlag(int offset) {
        return take(offset) != 0;
    }

    /** Clears the word at {@code offset} in the trailer; what it held. A plain read first: mostly it is 0. */
    private int take(int offset) {
        return trailer.getIntVolatile(offset) == 0 ? 0 : trailer.getAndSetInt(offset, 0);
    }

    public void producerClosed() {
        trailer.putIntVolatile(PRODUCER_CLOSED, 1);
    }

    public void consumerClosed() {
        trailer.putIntVolatile(CONSUMER_CLOSED, 1);
    }

    public boolean isProducerClosed() {
        return trailer.getIntVolatile(PRODUCER_CLOSED) != 0;
    }

    public boolean isConsumerClosed() {
        return trailer.getIntVolatile(CONSUMER_CLOSED) != 0;
    }
}
