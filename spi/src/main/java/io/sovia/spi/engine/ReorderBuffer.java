package io.sovia.spi.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Sequenced frames of a lossy link that arrived ahead of a gap, kept until the gap fills (selective repeat): with
 * go-back-N alone a receiver dropped every frame after a lost one, so each loss cost a whole window sent again, and
 * at 5% loss nearly every window of 256 frames had one. Holds at most w frames, one slot per sequence number
 * modulo w, which frames within w of the next expected one never share. The memory is taken at the first frame out
 * of order, so a link that loses nothing pays nothing. Guarded by the session's lock.
 */
final class ReorderBuffer {
    private final int slots;
    private final int slotLength;
    private ByteBuffer frames;
    private int[] seqs;
    private int[] lengths;
    private int takenLength;
    /** Frames kept. */
    private int count;

    ReorderBuffer(int slots, int maxFrameLength) {
        this.slots = slots;
        this.slotLength = maxFrameLength;
    }

    /**
     * Keeps a copy of the frame with {@code seq}, ahead of {@code rcvNxt} by less than w; anything else (a copy of a
     * frame already taken, one beyond the window) is left out.
     */
    void keep(int rcvNxt, int seq, ByteBuffer buffer, int offset, int length) {
        int ahead = seq - rcvNxt;
        if (ahead <= 0 || ahead >= slots || length > slotLength) {
            return;
        }
        if (frames == null) {
            frames = ByteBuffer.allocate(slots * slotLength).order(ByteOrder.LITTLE_ENDIAN);
            seqs = new int[slots];
            lengths = new int[slots];
        }
        int slot = Math.floorMod(seq, slots);
        if (lengths[slot] == 0) {
            count++;
        }
        frames.put(slot * slotLength, buffer, offset, length);
        seqs[slot] = seq;
        lengths[slot] = length;
    }

    /**
     * The kept frame with {@code seq}, taken out: its offset in {@link #buffer()} (its length then in
     * {@link #takenLength()}), or -1 when there is none.
     */
    int take(int seq) {
        if (frames == null) {
            return -1;
        }
        int slot = Math.floorMod(seq, slots);
        if (lengths[slot] == 0 || seqs[slot] != seq) {
            return -1;
        }
        takenLength = lengths[slot];
        lengths[slot] = 0;
        count--;
        return slot * slotLength;
    }

    /** Bytes of the bitmap an ACK carries while frames beyond a gap are kept ({@link FrameFlyweight}). */
    int sackLength() {
        return (Math.min(slots - 1, FrameFlyweight.SACK_MAX_BITS) + 7) / 8;
    }

    /** Writes {@code length} bytes of the bitmap of the frames kept past {@code rcvNxt} at {@code at}. */
    void writeSack(int rcvNxt, ByteBuffer dst, int at, int length) {
        for (int b = 0; b < length; b++) {
            dst.put(at + b, (byte) 0);
        }
        for (int i = 0; i < length * 8; i++) {
            int seq = rcvNxt + 1 + i;
            int slot = Math.floorMod(seq, slots);
            if (frames != null && seq - rcvNxt < slots && lengths[slot] != 0 && seqs[slot] == seq) {
                FrameFlyweight.sackHold(dst, at, i);
            }
        }
    }

    /** Whether frames beyond a gap are kept. */
    boolean hasGap() {
        return count > 0;
    }

    /** The length of the frame {@link #take} returned last. */
    int takenLength() {
        return takenLength;
    }

    ByteBuffer buffer() {
        return frames;
    }
}
