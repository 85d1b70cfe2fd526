package io.sovia.spi.jdk;

import java.nio.channels.spi.SelectorProvider;

/**
 * The JDK's own NIO, beneath Sovia's provider: what carries every byte on the TCP path, and what
 * Sovia's own machinery (doorbells, sleeps, UNIX sockets) runs on. Needs {@code sun.nio.ch} exported
 * to Sovia (the agent does it).
 */
public final class JdkNio {
    private JdkNio() {
    }

    /** The JDK's default provider, whatever {@link SelectorProvider#provider()} returns. */
    public static SelectorProvider provider() {
        return sun.nio.ch.DefaultSelectorProvider.get();
    }

    /** The address of a direct buffer's memory, for the native calls. */
    public static long address(java.nio.ByteBuffer direct) {
        return ((sun.nio.ch.DirectBuffer) direct).address();
    }

    /** The descriptor of a channel {@link #provider()} made, for the native calls the JDK lacks. */
    public static int fd(java.nio.channels.SelectableChannel channel) {
        return ((sun.nio.ch.SelChImpl) channel).getFDVal();
    }
}
