package io.sovia.spi.backend;

import io.sovia.spi.config.BufferSizes;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * The TCP socket a connection is set up with, as each socket API holds it: what the connection upgrade
 * needs of it, whether it came from a {@code SocketChannel} or a {@code java.net.Socket}.
 */
public interface SetupSocket {
    /** The bound address, or null when unbound; once connected, the address the kernel chose. */
    SocketAddress localAddress() throws IOException;

    /** Binds before the connect. */
    void bind(SocketAddress local) throws IOException;

    /** The connected remote address. */
    SocketAddress remoteAddress() throws IOException;

    /** The buffer sizes the app set on the socket, which size the session's buffers. */
    BufferSizes bufferSizes();

    /** The socket's options, which a session taking over its connection keeps. */
    SetupOptions options();

    /** Closes it, when the connection it set up ends. */
    void close() throws IOException;
}
