package io.sovia.spi.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where frames land in a ring: a connection of small messages keeps to the first pages (so the rest of a shared
 * ring is never touched, hence never allocated), and a ring that holds unread frames is never rewound under them.
 */
@Timeout(10)
class FrameRingTest {
    private static final int CAPACITY = 1 << 20;

    private final ByteBuffer memory = ByteBuffer.allocateDirect(FrameRingDescriptor.totalLength(CAPACITY));
    private final FrameRing producer = new FrameRing(memory, CAPACITY);
    private final FrameRing consumer = new FrameRing(memory.duplicate(), CAPACITY);
    private final List<Integer> received = new ArrayList<>();

    @Test
    void requestsAndResponsesStayInTheFirstPages() {
        int highest = 0;
        for (int i = 0; i < 100_000; i++) {
            int offset = publish(1 + i % 700, i);
            highest = Math.max(highest, offset);
            assertEquals(1, poll());
            assertEquals(i, received.get(received.size() - 1));
        }
        assertTrue(highest < FrameRing.REWIND_INDEX + 1024, "highest frame offset " + highest);
        assertFalse(consumer.isCorrupt());
    }

    @Test
    void aRingWithUnreadFramesIsFilledInOrderAndThenReadInOrder() {
        int frames = 0;
        int highest = 0;
        while (true) {
            int offset = producer.claim(1000);
            if (offset < 0) {
                break;
            }
            producer.buffer().putInt(offset, frames++);
            producer.commit();
            highest = Math.max(highest, offset);
        }
        assertTrue(highest > CAPACITY - 2048, "a stream uses the whole ring: highest offset " + highest);
        while (poll() > 0) {
            // drains in order, checked below
        }
        assertEquals(frames, received.size());
        for (int i = 0; i < frames; i++) {
            assertEquals(i, received.get(i));
        }
        assertFalse(consumer.isCorrupt());
    }

    @Test
    void aProducerThatFoundTheRingFullIsToldOnceHalfTheRingIsFree() {
        assertFalse(consumer.takeSpaceWanted(), "nobody asked yet");
        int frames = 0;
        while (producer.claim(1000) >= 0) {
            producer.commit();
            frames++;
        }
        assertEquals(1, consumer.poll((buffer, offset, length) -> true, 1));
        assertFalse(consumer.takeSpaceWanted(), "one frame's room: the producer would add one frame and ask again");
        assertTrue(producer.claim(1000) >= 0, "yet the room is there for a producer that looks");
        producer.commit();
        int taken = 1;
        while (!consumer.takeSpaceWanted()) {
            assertEquals(1, consumer.poll((buffer, offset, length) -> true, 1), "answered by the time the ring is empty");
            taken++;
        }
        assertTrue(taken >= frames / 2, "answered once half the ring was free: after " + taken + " of " + frames);
        assertTrue(taken <= frames / 2 + 2, "and no later: after " + taken + " of " + frames);
        assertFalse(consumer.takeSpaceWanted(), "one request, one answer");
    }

    @Test
    void aWriterRingsOncePerSleepOfItsReader() {
        consumer.armed(FrameRingDescriptor.ARMED_DOORBELL | FrameRingDescriptor.ARMED_WORD);
        assertEquals(FrameRingDescriptor.ARMED_DOORBELL | FrameRingDescriptor.ARMED_WORD, producer.takeArmed(),
                "the first commit after the reader armed wakes it, the ways it asked");
        assertEquals(0, producer.takeArmed(), "later commits before it sleeps again do not");
        consumer.armed(FrameRingDescriptor.ARMED_WORD);
        assertEquals(FrameRingDescriptor.ARMED_WORD, producer.takeArmed(), "it armed again before sleeping again");
    }

    private int publish(int length, int value) {
        int offset = producer.claim(Math.max(length, 4));
        producer.buffer().putInt(offset, value);
        producer.commit();
        return offset;
    }

    private int poll() {
        return consumer.poll((buffer, offset, length) -> {
            received.add(buffer.getInt(offset));
            return true;
        }, Integer.MAX_VALUE);
    }
}
