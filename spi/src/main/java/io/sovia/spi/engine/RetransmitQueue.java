package io.sovia.spi.engine;

import java.nio.ByteBuffer;

/**
 * Sequenced frames sent on an unreliable link and not yet acknowledged, oldest first, with their send
 * times (ESP's retransmission queue). Fixed slots of the link's frame size, so no object per frame.
 * Not thread-safe: the session lock guards it.
 */
final class RetransmitQueue {
    private final int slots;
    private final int slotLength;
    private final ByteBuffer frames;
    private final int[] seqs;
    private final int[] lengths;
    private final long[] sentNanos;
    private final boolean[] retransmitted;
    private int first;
    private int count;

    RetransmitQueue(int slots, int slotLength) {
        this.slots = slots;
        this.slotLength = slotLength;
        this.frames = ByteBuffer.allocate(slots * slotLength);
        this.seqs = new int[slots];
        this.lengths = new int[slots];
        this.sentNanos = new long[slots];
        this.retransmitted = new boolean[slots];
    }

    boolean isFull() {
        return count == slots;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int size() {
        return count;
    }

    /** Keeps a copy of a frame just sent. */
    void add(int seq, ByteBuffer src, int offset, int length, long now) {
        int slot = (first + count) % slots;
        frames.put(slot * slotLength, src, offset, length);
        seqs[slot] = seq;
        lengths[slot] = length;
        sentNanos[slot] = now;
        retransmitted[slot] = false;
        count++;
    }

    /** When the i-th oldest frame was last sent. */
    long sentAt(int i) {
        return sentNanos[(first + i) % slots];
    }

    /**
     * Drops frames with sequence numbers before {@code ack} (cumulative).
     *
     * @return the round-trip sample of the newest frame dropped that was sent only once, or -1 (Karn)
     */
    long acknowledge(int ack, long now) {
        long rtt = -1;
        while (count > 0 && seqs[first] - ack < 0) {
            rtt = retransmitted[first] ? -1 : now - sentNanos[first];
            first = (first + 1) % slots;
            count--;
        }
        return rtt;
    }

    /** The i-th oldest frame's offset in {@link #buffer()}. */
    int offset(int i) {
        return ((first + i) % slots) * slotLength;
    }

    int length(int i) {
        return lengths[(first + i) % slots];
    }

    /** Marks the i-th oldest frame as sent again at {@code now}. */
    void resent(int i, long now) {
        int slot = (first + i) % slots;
        sentNanos[slot] = now;
        retransmitted[slot] = true;
    }

    ByteBuffer buffer() {
        return frames;
    }

    void clear() {
        count = 0;
    }
}
