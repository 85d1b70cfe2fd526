package io.sovia.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The receive ring's reader, over memory laid out as the kernel fills a TPACKET_V2 ring. The timeout runs the tests on
 * a thread of their own: a drain that never ends must fail the test, not hang the build.
 */
@Timeout(value = 10, threadMode = SEPARATE_THREAD)
class RxRingTest {
    private static final int SLOT = 64;
    private static final int SLOTS = 4;
    /** Where the kernel would put the frame in its slot (tp_mac). */
    private static final int MAC = 32;

    private final ByteBuffer memory = ByteBuffer.allocateDirect(SLOT * SLOTS).order(ByteOrder.nativeOrder());
    private final RxRing ring = new RxRing(memory, SLOT);

    @Test
    void visitsWaitingFramesInOrderAndGivesTheirSlotsBack() {
        arrive(0, 10);
        arrive(1, 11);
        List<Integer> seen = new ArrayList<>();
        assertEquals(2, ring.drain((b, frame, length) -> seen.add(b.getInt(frame)), Integer.MAX_VALUE));
        assertEquals(List.of(10, 11), seen);
        assertEquals(0, memory.getInt(0), "slot 0 given back");
        assertEquals(0, memory.getInt(SLOT), "slot 1 given back");
        assertEquals(0, ring.drain((b, frame, length) -> seen.add(b.getInt(frame)), Integer.MAX_VALUE));
    }

    /** A stream refills each slot as soon as it is given back: one call still ends, after one lap. */
    @Test
    void framesThatKeepComingWaitForTheNextCall() {
        for (int i = 0; i < SLOTS; i++) {
            arrive(i, i);
        }
        int[] arrivals = {SLOTS};
        RxRing.FrameVisitor refilling = (b, frame, length) -> {
            int previous = (frame / SLOT + SLOTS - 1) % SLOTS;
            if (memory.getInt(previous * SLOT) == 0) {
                arrive(previous, arrivals[0]++);
            }
        };
        assertEquals(SLOTS, ring.drain(refilling, Integer.MAX_VALUE));
        assertTrue(ring.ready(), "what came meanwhile waits");
        List<Integer> seen = new ArrayList<>();
        ring.drain((b, frame, length) -> seen.add(b.getInt(frame)), Integer.MAX_VALUE);
        assertEquals(List.of(SLOTS, SLOTS + 1, SLOTS + 2), seen, "in the order it came");
    }

    @Test
    void stopsAtItsBudget() {
        for (int i = 0; i < 3; i++) {
            arrive(i, 30 + i);
        }
        List<Integer> seen = new ArrayList<>();
        assertEquals(2, ring.drain((b, frame, length) -> seen.add(b.getInt(frame)), 2));
        assertEquals(1, ring.drain((b, frame, length) -> seen.add(b.getInt(frame)), 2));
        assertEquals(List.of(30, 31, 32), seen);
    }

    @Test
    void slotIsGivenBackWhenTheVisitorThrows() {
        arrive(0, 20);
        arrive(1, 21);
        assertThrows(IllegalStateException.class, () -> ring.drain((b, frame, length) -> {
            throw new IllegalStateException("engine failed");
        }, Integer.MAX_VALUE));
        assertEquals(0, memory.getInt(0));
        List<Integer> seen = new ArrayList<>();
        assertEquals(1, ring.drain((b, frame, length) -> seen.add(b.getInt(frame)), Integer.MAX_VALUE));
        assertEquals(List.of(21), seen);
    }

    /** What the kernel does: the frame, its length and offset, then the status that hands the slot over. */
    private void arrive(int slot, int id) {
        int at = slot * SLOT;
        memory.putInt(at + MAC, id);
        memory.putInt(at + 8, 4);
        memory.putShort(at + 12, (short) MAC);
        memory.putInt(at, 1);
    }
}
