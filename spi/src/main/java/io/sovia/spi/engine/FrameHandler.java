package io.sovia.spi.engine;

import java.nio.ByteBuffer;

/** Receives frames polled from a {@link Link}. */
@FunctionalInterface
public interface FrameHandler {
    /**
     * A whole frame of {@code length} bytes at {@code offset}; valid only during the call.
     *
     * @return true if the frame was taken; false leaves it (and every later one) in the link for the
     *         next poll, which lets a reliable link's ring serve as the receive buffer
     */
    boolean onFrame(ByteBuffer buffer, int offset, int length);
}
