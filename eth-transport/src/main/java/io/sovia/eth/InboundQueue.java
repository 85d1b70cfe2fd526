package io.sovia.eth;

import io.sovia.spi.engine.FrameHandler;
import io.sovia.spi.link.FrameRing;

import java.nio.ByteBuffer;

/**
 * The frames that arrived for one link, waiting for its session: queue rings that start at 64 KiB, enough for
 * request/response traffic, and grow fourfold, up to a window of frames and a round of copies, when a stream fills
 * them. A connection made a 1 MiB ring and zeroed it before its hello (and its server another), a third of the
 * 3 ms a connection took.
 *
 * <p>Threading: one producer at a time (the port's pump), one consumer (the session's lock holder). The producer
 * moves to a new ring only when the old one is full and never writes the old one again; the consumer moves on once
 * it has emptied the old one.
 */
final class InboundQueue {
    private static final int INITIAL = 64 * 1024;
    private static final int GROWTH = 4;

    /** One ring and the one the producer moved on to. */
    private static final class Segment {
        final FrameRing ring;
        volatile Segment next;

        Segment(int capacity) {
            this.ring = FrameRing.allocateQueue(capacity);
        }
    }

    private final int maxCapacity;
    /** The producer's. */
    private Segment tail;
    private int tailCapacity;
    /** The consumer's. */
    private Segment head;

    /** A queue that grows to {@code maxCapacity} bytes of ring (a power of two). */
    InboundQueue(int maxCapacity) {
        this.maxCapacity = Math.max(INITIAL, maxCapacity);
        this.tailCapacity = INITIAL;
        this.tail = this.head = new Segment(INITIAL);
    }

    /** Producer: queues a copy of the {@code length} bytes at {@code at} of {@code b}; false when full for good. */
    boolean offer(ByteBuffer b, int at, int length) {
        int offset = tail.ring.claim(length);
        if (offset < 0) {
            if (tailCapacity >= maxCapacity) {
                return false;
            }
            tailCapacity = Math.min(maxCapacity, tailCapacity * GROWTH);
            Segment grown = new Segment(tailCapacity);
            tail.next = grown;
            tail = grown;
            offset = grown.ring.claim(length);
        }
        tail.ring.buffer().put(offset, b, at, length);
        tail.ring.commit();
        return true;
    }

    /** Consumer: hands up to {@code limit} frames to {@code handler}, in order. */
    int poll(FrameHandler handler, int limit) {
        int n = head.ring.poll(handler, limit);
        Segment next;
        while (n < limit && (next = head.next) != null && !head.ring.hasFrames()) {
            head = next;
            n += head.ring.poll(handler, limit - n);
        }
        return n;
    }

    /** Consumer: whether a frame waits; volatile reads. */
    boolean hasFrames() {
        for (Segment s = head; s != null; s = s.next) {
            if (s.ring.hasFrames()) {
                return true;
            }
        }
        return false;
    }
}
