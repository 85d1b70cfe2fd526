package io.sovia.spi.link;

import io.sovia.spi.jdk.JdkNio;
import jdk.internal.misc.Unsafe;

import java.nio.ByteBuffer;

/**
 * Ordered access to the words of a {@link FrameRing}'s trailer ({@link FrameRingDescriptor}: head, tail and the
 * flags), straight through the JDK's internal {@code Unsafe} at the trailer's address.
 *
 * <p>Why not a {@code VarHandle} over the buffer: every access through a byte-buffer view handle drags about 350
 * bytes of guards, scope and alignment checks into the JIT's graph. The ring's hot methods make a dozen such accesses
 * and are inlined into every read and write path, so C2 spent seconds of CPU at startup compiling them (two thirds
 * of the inlined bytes of {@code SessionSender.flushUnsent}): the same cores the app's first transfers need. The
 * offsets here are the descriptor's constants, checked once against the buffer's length, never values read from
 * shared memory, so nothing is lost by skipping the per-access checks. The agent exports
 * {@code jdk.internal.misc} to Sovia (the tests' command line does the same). Words are in native byte order,
 * little-endian on every platform Sovia runs on.
 */
final class RingTrailer {
    private static final Unsafe UNSAFE = Unsafe.getUnsafe();

    /** Kept so the memory stays allocated (a direct buffer frees it when collected) while this is in use. */
    private final ByteBuffer buffer;
    private final long address;

    /** The trailer that starts at {@code start} in {@code buffer}, which must be direct and hold all of it. */
    RingTrailer(ByteBuffer buffer, int start) {
        if (!buffer.isDirect() || start < 0 || buffer.capacity() - start < FrameRingDescriptor.TRAILER_LENGTH) {
            throw new IllegalArgumentException("no ring trailer at " + start + " in " + buffer);
        }
        this.buffer = buffer;
        this.address = JdkNio.address(buffer) + start;
    }

    long getLongAcquire(int offset) {
        return UNSAFE.getLongAcquire(null, address + offset);
    }

    long getLongVolatile(int offset) {
        return UNSAFE.getLongVolatile(null, address + offset);
    }

    void putLongRelease(int offset, long value) {
        UNSAFE.putLongRelease(null, address + offset, value);
    }

    int getIntVolatile(int offset) {
        return UNSAFE.getIntVolatile(null, address + offset);
    }

    void putIntVolatile(int offset, int value) {
        UNSAFE.putIntVolatile(null, address + offset, value);
    }

    void putIntRelease(int offset, int value) {
        UNSAFE.putIntRelease(null, address + offset, value);
    }

    int getAndSetInt(int offset, int value) {
        return UNSAFE.getAndSetInt(null, address + offset, value);
    }

    int getAndAddInt(int offset, int delta) {
        return UNSAFE.getAndAddInt(null, address + offset, delta);
    }

    /** The address of the word at {@code offset}, for the kernel (a futex). */
    long address(int offset) {
        return address + offset;
    }

    static void fullFence() {
        UNSAFE.fullFence();
    }
}
