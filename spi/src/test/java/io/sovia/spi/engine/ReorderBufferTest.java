package io.sovia.spi.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Frames kept ahead of a gap: only those within w of the next expected one, each taken once, whole. */
@Timeout(10)
class ReorderBufferTest {
    private final ReorderBuffer buffer = new ReorderBuffer(4, 64);

    @Test
    void keepsFramesAheadOfTheGapWithinTheWindowAndGivesThemBackOnce() {
        assertFalse(buffer.hasGap());
        keep(100, 101, 7);
        keep(100, 103, 9);
        keep(100, 100, 1); // the next expected frame itself is never kept: it is handled at once
        keep(100, 99, 1); // a copy of one already taken
        keep(100, 104, 1); // w = 4 ahead: beyond what the sender may have in flight
        assertTrue(buffer.hasGap());
        assertEquals(-1, buffer.take(100));
        assertFrame(101, 7);
        assertEquals(-1, buffer.take(101), "taken once");
        assertEquals(-1, buffer.take(102));
        assertTrue(buffer.hasGap());
        assertFrame(103, 9);
        assertFalse(buffer.hasGap());
        assertEquals(-1, buffer.take(104));
    }

    @Test
    void sequenceNumbersWrapAround() {
        keep(Integer.MAX_VALUE, Integer.MIN_VALUE, 5); // one ahead, across the wrap
        assertFrame(Integer.MIN_VALUE, 5);
    }

    private void keep(int rcvNxt, int seq, int length) {
        ByteBuffer frame = ByteBuffer.allocate(length);
        frame.put(0, (byte) seq);
        buffer.keep(rcvNxt, seq, frame, 0, length);
    }

    private void assertFrame(int seq, int length) {
        int at = buffer.take(seq);
        assertTrue(at >= 0, "frame " + seq + " kept");
        assertEquals(length, buffer.takenLength());
        assertEquals((byte) seq, buffer.buffer().get(at));
    }
}
