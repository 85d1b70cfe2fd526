package io.sovia.spi.engine;

import java.nio.ByteBuffer;

/**
 * Sequenced frames sent on an unreliable link and not yet acknowledged, oldest first, with their send times (ESP's
 * retransmission queue): copies of the frames sent, or, for a link that sends from the caller's memory, the frames
 * themselves, written here once ({@link #claim()}, {@link #keep}). Slots of the link's frame size, so no object per
 * frame; 8 of them at first, doubled when full up to w: w slots at once (377 KB for 256 standard frames) made every
 * connection pay for a stream's window, and a JVM opening a thousand connections a second collect them. Not
 * thread-safe: the session lock guards it.
 */
final class RetransmitQueue {
    private static final int INITIAL_SLOTS = 8;

    private final int maxSlots;
    private final int slotLength;
    private final boolean direct;
    private int slots;
    private ByteBuffer frames;
    private int[] seqs;
    private int[] lengths;
    private long[] sentNanos;
    private boolean[] retransmitted;
    private int first;
    private int count;

    /** @param direct whether frames are kept in native memory, for a link that sends them from there */
    RetransmitQueue(int maxSlots, int slotLength, boolean direct) {
        this.maxSlots = maxSlots;
        this.slotLength = slotLength;
        this.direct = direct;
        allocate(Math.min(INITIAL_SLOTS, maxSlots));
    }

    private void allocate(int n) {
        slots = n;
        frames = direct ? ByteBuffer.allocateDirect(n * slotLength) : ByteBuffer.allocate(n * slotLength);
        seqs = new int[n];
        lengths = new int[n];
        sentNanos = new long[n];
        retransmitted = new boolean[n];
    }

    /** Twice the slots, the frames kept in order from slot 0. */
    private void grow() {
        ByteBuffer oldFrames = frames;
        int[] oldSeqs = seqs;
        int[] oldLengths = lengths;
        long[] oldSent = sentNanos;
        boolean[] oldResent = retransmitted;
        int oldSlots = slots;
        allocate(Math.min(maxSlots, slots * 2));
        for (int i = 0; i < count; i++) {
            int from = (first + i) % oldSlots;
            frames.put(i * slotLength, oldFrames, from * slotLength, oldLengths[from]);
            seqs[i] = oldSeqs[from];
            lengths[i] = oldLengths[from];
            sentNanos[i] = oldSent[from];
            retransmitted[i] = oldResent[from];
        }
        first = 0;
    }

    boolean isFull() {
        return count == maxSlots;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int size() {
        return count;
    }

    /** Keeps a copy of a frame just sent. */
    void add(int seq, ByteBuffer src, int offset, int length, long now) {
        int at = claim(); // first: it may replace frames
        frames.put(at, src, offset, length);
        keep(seq, length, now);
    }

    /**
     * Where in {@link #buffer()} the next frame kept goes, for the caller to write it there and {@link #keep} it; the
     * buffer may be a new one after this call. Check {@link #isFull()} first.
     */
    int claim() {
        if (count == slots) {
            grow();
        }
        return ((first + count) % slots) * slotLength;
    }

    /** Keeps the frame written at {@link #claim()}. */
    void keep(int seq, int length, long now) {
        int slot = (first + count) % slots;
        seqs[slot] = seq;
        lengths[slot] = length;
        sentNanos[slot] = now;
        retransmitted[slot] = false;
        count++;
    }

    /** The i-th oldest frame's sequence number. */
    int seq(int i) {
        return seqs[(first + i) % slots];
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
