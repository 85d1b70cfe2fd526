package io.sovia.spi.nio;

import java.util.function.Function;

/**
 * What {@code Channels.newInputStream(ReadableByteChannel)} and {@code newOutputStream(WritableByteChannel)} return
 * for a Sovia socket channel, as hooks the agent patches into {@code Channels} (called with the channel; null:
 * the JDK's own stream). JDK 21 and later give their own socket channels streams that call the channel directly
 * ({@code sun.nio.ch.SocketInputStream}, {@code SocketOutputStream}); for any other channel, a Sovia one included,
 * and on JDK 17 for all, each call takes the stream's monitor and the channel's blocking lock, a quarter of a 64-byte
 * write's cost on the shm path. These streams behave as the JDK 25 ones do: a channel in non-blocking mode throws
 * {@code IllegalBlockingModeException}, a write writes everything, a read waits for at least one byte, closing the
 * stream closes the channel, and threads may share a stream, as the channel keeps each write whole (its write
 * turn) where the JDK's monitor did.
 */
public final class ChannelStreams {
    /** The {@code newInputStream} hook. */
    public static final Function<Object[], Object> INPUT =
            call -> call[0] instanceof SoviaSocketChannel ch ? new AdaptorInputStream(ch, () -> 0) : null;
    /** The {@code newOutputStream} hook. */
    public static final Function<Object[], Object> OUTPUT =
            call -> call[0] instanceof SoviaSocketChannel ch ? new AdaptorOutputStream(ch) : null;

    private ChannelStreams() {
    }
}
