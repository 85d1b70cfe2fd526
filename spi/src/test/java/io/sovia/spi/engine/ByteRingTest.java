package io.sovia.spi.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A session buffer starts small and grows while it holds bytes: whatever the sizes of what goes in and out, and
 * however the storage grew meanwhile, bytes come out in the order they went in, and it holds up to its capacity.
 */
@Timeout(20)
class ByteRingTest {

    @Test
    void bytesComeOutInOrderWhileTheStorageGrows() {
        for (int capacity : new int[] {1024, 100_000, 1 << 20}) {
            for (long seed = 1; seed <= 20; seed++) {
                roundTrip(capacity, new SplittableRandom(seed));
            }
        }
    }

    @Test
    void holdsItsWholeCapacity() {
        ByteRing ring = new ByteRing(100_000);
        byte[] in = new byte[100_000];
        new SplittableRandom(7).nextBytes(in);
        assertEquals(99_000, ring.append(ByteBuffer.wrap(in, 0, 99_000), Integer.MAX_VALUE));
        byte[] head = new byte[500];
        assertEquals(500, ring.take(head, 0, 500));
        assertEquals(1_500, ring.append(ByteBuffer.wrap(in, 99_000, 1_000), Integer.MAX_VALUE)
                + ring.append(ByteBuffer.wrap(in, 0, 500), Integer.MAX_VALUE));
        assertEquals(0, ring.free());
        byte[] out = new byte[100_000];
        assertEquals(100_000, ring.take(out, 0, out.length));
        assertEquals(ByteBuffer.wrap(in, 500, 99_500), ByteBuffer.wrap(out, 0, 99_500));
        assertEquals(ByteBuffer.wrap(in, 0, 500), ByteBuffer.wrap(out, 99_500, 500));
    }

    private static void roundTrip(int capacity, SplittableRandom random) {
        ByteRing ring = new ByteRing(capacity);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        for (int step = 0; step < 2_000; step++) {
            if (random.nextBoolean()) {
                byte[] chunk = new byte[random.nextInt(1, Math.max(2, capacity / (random.nextBoolean() ? 3 : 200)))];
                random.nextBytes(chunk);
                int n = ring.append(ByteBuffer.wrap(chunk), Integer.MAX_VALUE);
                expected.write(chunk, 0, n);
            } else if (random.nextBoolean()) {
                byte[] out = new byte[random.nextInt(1, capacity)];
                int n = ring.take(out, 0, out.length);
                actual.write(out, 0, n);
            } else {
                ByteBuffer out = ByteBuffer.allocate(random.nextInt(1, capacity));
                ring.take(out);
                actual.write(out.array(), 0, out.position());
            }
        }
        byte[] rest = new byte[ring.size()];
        ring.take(rest, 0, rest.length);
        actual.write(rest, 0, rest.length);
        assertEquals(expected.size(), actual.size());
        assertEquals(true, Arrays.equals(expected.toByteArray(), actual.toByteArray()), "bytes out of order");
    }
}
