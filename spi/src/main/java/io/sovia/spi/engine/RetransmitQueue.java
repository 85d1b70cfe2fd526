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

    /** Whether the i-th oldest frame was sent more than once. */
    boolean wasResent(int i) {
        return retransmitted[(first + i) % slots];
    }

    /** When the i-th oldest frame was last sent. */
    long sentAt(int i) {
        return sentNanos[(first + i) % slots];
    }

    /**
     * Drops frames with sequence numbers before {@code ack} (cumulative).
     *
     * @return the round trip of the newest frame dropped, or -1 when any frame dropped was sent again (Karn's rule,
     *         extended: an ack that covers a resent frame filled a gap, and the frames after the gap waited in the
     *         receiver for it; their times measured loss recovery, which fed into rto made recovery slower still)
     */
    long acknowledge(int ack, long now) {
        boolean clean = true;
        long newest = 0;
        boolean any = false;
        while (count > 0 && seqs[first] - ack < 0) {
            clean &= !retransmitted[first];
            newest = sentNanos[first];
            any = true;
            first = (first + 1) % slots;
            count--;
        }
        return any && clean ? now - newest : -1;
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
