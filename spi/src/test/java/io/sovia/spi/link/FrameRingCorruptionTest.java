package io.sovia.spi.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer of the same user can write anything into the rings of a shared segment. Whatever it writes, polling ends
 * at once, without an exception, and the ring (and so the link) reports the peer gone instead of handing over a
 * frame that lies outside what was published. Before the checks, a negative length looped for ever and a length
 * past the ring's end threw IndexOutOfBoundsException.
 */
@Timeout(10)
class FrameRingCorruptionTest {
    private static final int CAPACITY = 1024;
    private static final int TAIL_OFFSET = CAPACITY + FrameRingDescriptor.TAIL;

    private final ByteBuffer memory =
            ByteBuffer.allocateDirect(FrameRingDescriptor.totalLength(CAPACITY)).order(ByteOrder.LITTLE_ENDIAN);
    private final FrameRing producer = new FrameRing(memory, CAPACITY);
    private final FrameRing consumer = new FrameRing(memory.duplicate(), CAPACITY);
    private final List<byte[]> taken = new ArrayList<>();

    @Test
    void wellFormedFramesAcrossTheEndArePolled() {
        for (int round = 0; round < 50; round++) {
            publish(new byte[] {(byte) round, 2, 3});
            publish(new byte[100]);
            assertEquals(2, poll());
        }
        assertFalse(consumer.isCorrupt());
        assertEquals(100, taken.size());
    }

    @Test
    void minimumIntLengthBeforeAnyFrame() {
        hostile(0, Integer.MIN_VALUE, 8);
        assertCorruptAfterPoll(0);
    }

    @Test
    void paddingThatDoesNotRunToTheEnd() {
        hostile(0, -8, 64);
        assertCorruptAfterPoll(0);
    }

    @Test
    void paddingPublishedBeyondTheTail() {
        int at = fillTo();
        // padding from there to the end is right, but the tail stops before the end of it
        hostile(at, -(CAPACITY - at), at + 8);
        assertCorruptAfterPoll(0);
    }

    @Test
    void tailFarBeyondTheRing() {
        hostile(0, 0, 10L * CAPACITY);
        assertCorruptAfterPoll(0);
    }

    @Test
    void lengthThatWouldOverflow() {
        hostile(0, Integer.MAX_VALUE, 8);
        assertCorruptAfterPoll(0);
    }

    @Test
    void frameRunningPastTheEndOfTheRing() {
        int at = fillTo();
        hostile(at, 100, at + 104);
        assertCorruptAfterPoll(0);
    }

    @Test
    void frameRunningPastTheTail() {
        hostile(0, 64, 16);
        assertCorruptAfterPoll(0);
    }

    @Test
    void framesBeforeTheDamageAreStillHandedOver() {
        publish(new byte[] {1});
        publish(new byte[] {2});
        long tail = memory.getLong(TAIL_OFFSET);
        hostile((int) tail, Integer.MIN_VALUE, tail + 8);
        assertCorruptAfterPoll(2);
        assertArrayEquals(new byte[] {2}, taken.get(1));
    }

    @Test
    void aCorruptRingEndsItsLink() {
        ByteBuffer other = ByteBuffer.allocateDirect(FrameRingDescriptor.totalLength(CAPACITY));
        RingLink link = new RingLink(consumer, new FrameRing(other, CAPACITY), () -> { }, () -> { });
        assertTrue(link.isPeerAlive());
        hostile(0, Integer.MIN_VALUE, 8);
        assertTrue(link.hasFrames(), "published, not yet looked at");
        assertEquals(0, link.poll((buffer, offset, length) -> true, Integer.MAX_VALUE));
        assertFalse(link.isPeerAlive(), "a peer that wrote a corrupt ring is as good as gone");
        assertFalse(link.hasFrames(), "nothing more is read from it");
    }

    /** Publishes and polls four frames of 224 bytes; returns the position after them, 96 bytes before the end. */
    private int fillTo() {
        for (int i = 0; i < 4; i++) {
            publish(new byte[224]);
        }
        assertEquals(4, poll());
        return 4 * FrameRingDescriptor.recordLength(224);
    }

    private void publish(byte[] frame) {
        int offset = producer.claim(frame.length);
        memory.put(offset, frame);
        producer.commit();
    }

    /** Writes {@code length} at {@code index} and publishes up to {@code tail}, as a hostile producer could. */
    private void hostile(int index, int length, long tail) {
        memory.putInt(index, length);
        memory.putLong(TAIL_OFFSET, tail);
    }

    private int poll() {
        return consumer.poll((buffer, offset, length) -> {
            byte[] frame = new byte[length];
            buffer.get(offset, frame);
            taken.add(frame);
            return true;
        }, Integer.MAX_VALUE);
    }

    private void assertCorruptAfterPoll(int frames) {
        assertEquals(frames, poll());
        assertTrue(consumer.isCorrupt());
        assertFalse(consumer.hasFrames());
        assertEquals(0, poll(), "a corrupt ring yields nothing more");
    }
}
