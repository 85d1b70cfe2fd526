package io.sovia.spi.backend;

import io.sovia.spi.config.BufferSizes;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.SelectableChannel;
import java.util.Set;

/**
 * What listens behind an app-facing {@code ServerSocketChannel}. Threading as for
 * {@link SocketBackend}: {@link #close()} may come from any thread and wakes a blocked accept.
 */
public interface ServerBackend {
    /** The JDK channel a selector registers to learn about pending connections. */
    SelectableChannel pollChannel();

    /** Changes between blocking and non-blocking operation. */
    void configureBlocking(boolean block) throws IOException;

    /** Binds and listens, as {@code ServerSocketChannel.bind(SocketAddress, int)}. */
    void bind(SocketAddress local, int backlog) throws IOException;

    /** The bound address, or null. */
    SocketAddress localAddress() throws IOException;

    /** Accepts one connection, as {@code ServerSocketChannel.accept}: null when non-blocking and none is pending. */
    SocketBackend accept() throws IOException;

    /**
     * A blocking accept for the {@code ServerSocket} adaptor: waits at most {@code timeoutMillis}
     * (0 = forever), then throws {@link java.net.SocketTimeoutException}.
     */
    SocketBackend accept(int timeoutMillis) throws IOException;

    /** Sets a socket option. */
    <T> void setOption(SocketOption<T> name, T value) throws IOException;

    /** Reads a socket option. */
    <T> T getOption(SocketOption<T> name) throws IOException;

    /** The buffer sizes the app set, which the sessions of accepted connections take. */
    BufferSizes bufferSizes();

    /** The options this backend supports. */
    Set<SocketOption<?>> supportedOptions();

    /** Releases the listener and wakes a blocked accept. Idempotent. */
    void close() throws IOException;
}
