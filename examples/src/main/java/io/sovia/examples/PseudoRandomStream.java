package io.sovia.examples;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The bytes of {@link DemoSupport#pseudoRandom} for a seed, handed out in pieces of any size, so a
 * sender can cut the stream into writes as it likes and a receiver can regenerate what it must get.
 */
final class PseudoRandomStream {
    private final SplittableRandom random;
    private final byte[] chunk = new byte[64 * 1024];
    private int position = chunk.length;

    PseudoRandomStream(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** Clears {@code into}, puts the next {@code n} bytes there and flips it. */
    void next(ByteBuffer into, int n) {
        into.clear();
        while (n > 0) {
            refill();
            int k = Math.min(n, chunk.length - position);
            into.put(chunk, position, k);
            position += k;
            n -= k;
        }
        into.flip();
    }

    /** Puts the next {@code n} bytes into {@code into} from index 0. */
    void next(byte[] into, int n) {
        for (int at = 0; at < n; ) {
            refill();
            int k = Math.min(n - at, chunk.length - position);
            System.arraycopy(chunk, position, into, at, k);
            position += k;
            at += k;
        }
    }

    private void refill() {
        if (position == chunk.length) {
            random.nextBytes(chunk);
            position = 0;
        }
    }
}
