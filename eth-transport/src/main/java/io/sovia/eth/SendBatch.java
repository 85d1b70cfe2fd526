package io.sovia.eth;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.MessageVectorDescriptor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Frames an {@link EthLink} committed and has not sent yet, in slots of one direct buffer, sent together in one
 * {@code sendmmsg} when the session lets go of its lock or the slots are full. One system call per frame held a
 * stream of 1.5 KB frames to a third of what the kernel carries: the raw floor on this veth pair is 521 MiB/s with
 * one {@code send} per frame and 745 with 32 per {@code sendmmsg}. A connection starts with one slot and doubles
 * them, up to {@value #MAX_SLOTS} or 64 KiB, when a batch fills: request/response traffic commits a frame or two
 * per lock and must not pay a stream's memory per connection.
 *
 * <p>Not thread-safe: the holder of the session's lock owns it.
 */
final class SendBatch {
    static final int MAX_SLOTS = 32;
    private static final int MAX_BYTES = 1 << 16;

    private final int slotLength;
    private final int maxSlots;
    private ByteBuffer frames;
    private ByteBuffer vector;
    private int slots;
    private int count;

    /** @param slotLength the longest frame on the wire */
    SendBatch(int slotLength) {
        this.slotLength = slotLength;
        this.maxSlots = Math.max(1, Math.min(MAX_SLOTS, MAX_BYTES / slotLength));
        allocate(1);
    }

    private void allocate(int n) {
        ByteBuffer oldFrames = frames;
        ByteBuffer oldVector = vector;
        frames = ByteBuffer.allocateDirect(n * slotLength).order(ByteOrder.LITTLE_ENDIAN);
        vector = MessageVectorDescriptor.allocate(n);
        slots = n;
        for (int i = 0; i < count; i++) {
            frames.put(i * slotLength, oldFrames, i * slotLength, slotLength);
            MessageVectorDescriptor.frame(vector, i, address(i), MessageVectorDescriptor.length(oldVector, i));
        }
    }

    private long address(int slot) {
        return JdkNio.address(frames) + (long) slot * slotLength;
    }

    /** Whether no slot is free: send first. Grows instead while it may. */
    boolean isFull() {
        if (count < slots) {
            return false;
        }
        if (slots < maxSlots) {
            allocate(Math.min(maxSlots, 2 * slots));
            return false;
        }
        return true;
    }

    /** Where the next frame goes in {@link #buffer()}; check {@link #isFull()} first. */
    int nextSlot() {
        return count * slotLength;
    }

    /** The frame at {@link #nextSlot()}, {@code length} bytes on the wire, is complete. */
    void add(int length) {
        MessageVectorDescriptor.frame(vector, count, address(count), length);
        count++;
    }

    /** The wire length of the i-th frame added. */
    int length(int i) {
        return MessageVectorDescriptor.length(vector, i);
    }

    ByteBuffer buffer() {
        return frames;
    }

    ByteBuffer vector() {
        return vector;
    }

    int size() {
        return count;
    }

    void clear() {
        count = 0;
    }
}
