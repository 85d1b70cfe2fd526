package io.sovia.eth;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.MessageVectorDescriptor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Frames an {@link EthLink} committed and has not sent yet, in slots of one direct buffer, sent together in one
 * {@code sendmmsg} when the session lets go of its lock or the slots are full. A frame the engine keeps for
 * retransmission stays in the engine's memory: its slot holds only the link's header, and the message gathers the
 * two (the buffer is held here until sent, so a retransmission queue that grew meanwhile cannot free it). One system
 * call per frame held a stream of 1.5 KB frames to a third of what the kernel carries: the raw floor on this veth
 * pair is 521 MiB/s with one {@code send} per frame and 745 with 32 per {@code sendmmsg}. A connection starts with
 * one slot and doubles them, up to {@value #MAX_SLOTS} or 64 KiB, when a batch fills: request/response traffic
 * commits a frame or two per lock and must not pay a stream's memory per connection.
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
    /** The buffers gathered frames lie in, per slot, until sent. */
    private ByteBuffer[] bodies;
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
        ByteBuffer[] oldBodies = bodies;
        frames = ByteBuffer.allocateDirect(n * slotLength).order(ByteOrder.LITTLE_ENDIAN);
        vector = MessageVectorDescriptor.allocate(n);
        bodies = new ByteBuffer[n];
        slots = n;
        for (int i = 0; i < count; i++) {
            frames.put(i * slotLength, oldFrames, i * slotLength, slotLength);
            int head = MessageVectorDescriptor.length(oldVector, i, 0);
            if (MessageVectorDescriptor.pieces(oldVector, i) == 1) {
                MessageVectorDescriptor.frame(vector, i, address(i), head);
            } else {
                MessageVectorDescriptor.frame(vector, i, address(i), head, MessageVectorDescriptor.address(oldVector, i, 1),
                        MessageVectorDescriptor.length(oldVector, i, 1));
                bodies[i] = oldBodies[i];
            }
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

    /**
     * The {@code headLength} bytes at {@link #nextSlot()} go on the wire followed by the {@code length} bytes at
     * {@code offset} of {@code body}, a direct buffer, as they are when the batch is sent.
     */
    void add(int headLength, ByteBuffer body, int offset, int length) {
        MessageVectorDescriptor.frame(vector, count, address(count), headLength, JdkNio.address(body) + offset, length);
        bodies[count] = body;
        count++;
    }

    /** Whether the i-th frame added lies whole in its slot, {@link #length} bytes of it. */
    boolean isWhole(int i) {
        return MessageVectorDescriptor.pieces(vector, i) == 1;
    }

    /** The wire length of the i-th frame added, if {@link #isWhole whole}. */
    int length(int i) {
        return MessageVectorDescriptor.length(vector, i, 0);
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
        Arrays.fill(bodies, 0, count, null);
        count = 0;
    }
}
