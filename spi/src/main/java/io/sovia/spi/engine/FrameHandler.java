package io.sovia.spi.engine;

import java.nio.ByteBuffer;

/** Receives frames polled from a {@link Link}. */
@FunctionalInterface
public interface FrameHandler {
    /** A whole frame of {@code length} bytes at {@code offset}; valid only during the call. */
    void onFrame(ByteBuffer buffer, int offset, int length);
}
