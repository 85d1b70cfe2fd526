package io.sovia.eth;

import io.sovia.spi.jdk.JdkNio;
import jdk.internal.misc.Unsafe;

import java.nio.ByteBuffer;

/**
 * A packet socket's {@code TPACKET_V2} receive ring, read without system calls: the kernel fills slots in
 * order and hands each over by setting {@code TP_STATUS_USER} in its header; the reader hands it back with 0.
 *
 * <pre>
 *  slot i at i * slotSize:
 *  0 tp_status  4 tp_len  8 tp_snaplen  12 tp_mac (u16)  14 tp_net (u16)  16 tp_sec  20 tp_nsec  24 vlan  28 pad
 *  tp_mac: where the frame (its Ethernet header first) starts, from the slot's start
 * </pre>
 * Threading: one reader at a time (the port's pump lock); {@link #ready()} from any thread.
 *
 * <p>Slot headers are read through the JDK's internal {@code Unsafe} at the mapping's address, as {@code RingTrailer}
 * does (Agrona's buffers use {@code sun.misc.Unsafe}, whose first use prints a warning on the app's standard error
 * from JDK 24 on). Offsets are slot starts this class computed, never values read from the ring.
 */
final class RxRing {
    private static final int TP_STATUS_USER = 1;
    private static final int STATUS = 0;
    private static final int SNAP_LENGTH = 8;
    private static final int MAC = 12;

    private final ByteBuffer buffer;
    private static final Unsafe UNSAFE = Unsafe.getUnsafe();

    private final long address;
    private final int slotSize;
    private final int slots;
    /** The slot to read next; the reader's. */
    private int next;

    RxRing(ByteBuffer buffer, int slotSize) {
        this.buffer = buffer;
        this.address = JdkNio.address(buffer);
        this.slotSize = slotSize;
        this.slots = buffer.capacity() / slotSize;
    }

    /** The mapping the slots live in. */
    ByteBuffer buffer() {
        return buffer;
    }

    /** Whether the next slot holds a frame; a volatile read. */
    boolean ready() {
        return (UNSAFE.getIntAcquire(null, address + (long) next * slotSize + STATUS) & TP_STATUS_USER) != 0;
    }

    /**
     * Hands the frames waiting to {@code visitor} in order, giving each slot back to the kernel once visited (also
     * when the visitor throws: a frame left in the ring would come round again at every drain, and every link of this
     * JVM would wait behind it), and returns after {@code maxFrames} frames or one lap of the ring, whichever comes
     * first. A lap takes every frame that waited when the call began, since the ring holds no more; frames that keep
     * coming meanwhile wait for the next call. Without the bound a stream kept one drain going for as long as it
     * flowed: the receiver thread spent up to a second in one, delivering frames and waking their readers, while its
     * beats waited and its peers took it for silent.
     *
     * @return how many frames it visited
     */
    int drain(FrameVisitor visitor, int maxFrames) {
        int most = Math.min(slots, maxFrames);
        int visited = 0;
        while (visited < most && ready()) {
            int slot = next * slotSize;
            long header = address + slot;
            try {
                visitor.visit(buffer, slot + (UNSAFE.getShort(null, header + MAC) & 0xFFFF),
                        UNSAFE.getInt(null, header + SNAP_LENGTH));
            } finally {
                UNSAFE.putIntRelease(null, header + STATUS, 0);
                next = next + 1 == slots ? 0 : next + 1;
                visited++;
            }
        }
        return visited;
    }

    /** What {@link #drain} hands each frame to. */
    @FunctionalInterface
    interface FrameVisitor {
        /** A frame of {@code length} bytes at {@code frame} of {@code buffer}, its Ethernet header first. */
        void visit(ByteBuffer buffer, int frame, int length);
    }
}
