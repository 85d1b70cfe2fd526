package io.sovia.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A link's queue of arrived frames: grows while a stream fills it, keeps the order across its rings, stops at its bound. */
@Timeout(10)
class InboundQueueTest {
    private static final int FRAME = 1474;

    @Test
    void growsToItsBoundKeepingOrderThenRefuses() {
        InboundQueue q = new InboundQueue(1 << 20);
        ByteBuffer frame = ByteBuffer.allocateDirect(FRAME);
        int offered = 0;
        while (q.offer(stamp(frame, offered), 0, FRAME)) {
            offered++;
        }
        // 64 KiB, then 256 KiB, then 1 MiB: the last ring alone holds a quarter of its frames per 1,488-byte record
        assertTrue(offered > (1 << 20) / (FRAME + 16), "only " + offered + " frames fit");
        List<Integer> got = new ArrayList<>();
        while (q.hasFrames()) {
            q.poll((b, at, length) -> got.add(b.getInt(at)), 7);
        }
        assertEquals(offered, got.size());
        for (int i = 0; i < offered; i++) {
            assertEquals(i, got.get(i), "frame " + i + " out of order");
        }
        assertFalse(q.hasFrames());
        assertTrue(q.offer(stamp(frame, offered), 0, FRAME), "room again once polled");
    }

    @Test
    void aFrameTheHandlerLeavesStaysFirst() {
        InboundQueue q = new InboundQueue(1 << 16);
        ByteBuffer frame = ByteBuffer.allocateDirect(64);
        q.offer(stamp(frame, 1), 0, 64);
        q.offer(stamp(frame, 2), 0, 64);
        assertEquals(0, q.poll((b, at, length) -> false, 10));
        List<Integer> got = new ArrayList<>();
        assertEquals(2, q.poll((b, at, length) -> got.add(b.getInt(at)), 10));
        assertEquals(List.of(1, 2), got);
    }

    /** The frame numbered {@code n}, in the queue's byte order. */
    private static ByteBuffer stamp(ByteBuffer frame, int n) {
        frame.order(ByteOrder.LITTLE_ENDIAN).putInt(0, n);
        return frame;
    }
}
