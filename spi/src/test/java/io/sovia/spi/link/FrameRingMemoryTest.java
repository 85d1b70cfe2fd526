package io.sovia.spi.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ring in this process needs only its trailer zeroed ({@link NativeOs#allocate}): over memory full of old bytes,
 * the consumer reads exactly the frames the producer wrote, through rewinds, wraps and a full ring.
 */
@Timeout(20)
class FrameRingMemoryTest {
    private static final int CAPACITY = 1 << 16;

    @Test
    void aRingOverOldBytesReadsOnlyWhatItsProducerWrote() {
        ByteBuffer memory = ByteBuffer.allocateDirect(FrameRingDescriptor.totalLength(CAPACITY));
        Random random = new Random(42);
        for (int i = 0; i < CAPACITY; i++) {
            memory.put(i, (byte) random.nextInt());
        }
        exchange(new FrameRing(memory, CAPACITY), new FrameRing(memory.duplicate(), CAPACITY));
    }

    @Test
    void allocatedMemoryHasAZeroedTrailerAndCarriesFrames() {
        NativeOs os = NativeAccess.osIfAvailable();
        assumeTrue(os != null, "native calls unavailable");
        int length = FrameRingDescriptor.totalLength(CAPACITY);
        for (int round = 0; round < 10; round++) {
            ByteBuffer memory = os.allocate(length, CAPACITY);
            ByteBuffer scribble = memory.duplicate();
            for (int i = CAPACITY; i < length; i++) {
                assertEquals(0, memory.get(i), "trailer byte " + i);
            }
            for (int i = 0; i < CAPACITY; i += 64) {
                scribble.put(i, (byte) 0xAB); // what the next allocation may find, if it reuses these pages
            }
            exchange(new FrameRing(memory, CAPACITY), new FrameRing(memory.duplicate(), CAPACITY));
        }
    }

    /** Small messages, then a full ring read in order, then more, with lengths that do not divide the ring. */
    private static void exchange(FrameRing producer, FrameRing consumer) {
        int[] next = {0};
        long sent = 0;
        for (int lap = 0; lap < 20; lap++) {
            for (int i = 0; i < 3000; i++) {
                sent = send(producer, sent, 4 + (i * 37) % 700);
                assertEquals(1, read(consumer, next));
            }
            while (true) {
                long more = send(producer, sent, 10 + lap * 97);
                if (more == sent) {
                    break;
                }
                sent = more;
            }
            while (read(consumer, next) > 0) {
                // checked in read
            }
            assertEquals(sent, next[0]);
        }
        assertFalse(consumer.isCorrupt());
    }

    /** Sends frame number {@code n} of {@code length} bytes, its number in each int; n + 1, or n when full. */
    private static long send(FrameRing producer, long n, int length) {
        int offset = producer.claim(length);
        if (offset < 0) {
            return n;
        }
        ByteBuffer b = producer.buffer();
        b.putInt(offset, length);
        for (int i = 4; i + 4 <= length; i += 4) {
            b.putInt(offset + i, (int) n);
        }
        producer.commit();
        return n + 1;
    }

    private static int read(FrameRing consumer, int[] next) {
        return consumer.poll((b, at, length) -> {
            assertEquals(length, b.getInt(at), "frame " + next[0] + "'s length");
            for (int i = 4; i + 4 <= length; i += 4) {
                assertEquals(next[0], b.getInt(at + i), "frame " + next[0] + " at byte " + i);
            }
            next[0]++;
            return true;
        }, 1 << 20);
    }
}
