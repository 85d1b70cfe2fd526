package io.sovia.spi.net;

import io.sovia.spi.backend.SetupOptions;
import io.sovia.spi.backend.SetupSocket;
import io.sovia.spi.config.BufferSizes;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOptions;

/**
 * A java.net socket's TCP setup, the JDK impl its {@link SoviaSocketImpl} delegates to, for the
 * connection upgrade. It holds the delegate only, never the Sovia impl: the session keeps it to close the
 * setup socket at the end, and a reference back would keep a dropped socket from ever being collected.
 */
final class DelegateSetup implements SetupSocket {
    private final java.net.SocketImpl delegate;
    private final BufferSizes bufferSizes;
    /**
     * The specific address {@link #bind} bound to, or null: the local address cannot change then, so it is not asked
     * of the kernel again (two {@code getsockname} each time). Owned by the connecting thread.
     */
    private InetAddress bound;

    DelegateSetup(java.net.SocketImpl delegate, BufferSizes bufferSizes) {
        this.delegate = delegate;
        this.bufferSizes = bufferSizes;
    }

    @Override
    public BufferSizes bufferSizes() {
        return bufferSizes;
    }

    @Override
    public SocketAddress localAddress() throws IOException {
        int port = NioImpl.localPort(delegate);
        if (port <= 0) {
            return null;
        }
        return bound != null ? new InetSocketAddress(bound, port) : localAddressOf(delegate);
    }

    /** The bound address of a JDK impl: after a connect, the one the kernel chose. */
    static InetSocketAddress localAddressOf(java.net.SocketImpl impl) throws java.net.SocketException {
        return new InetSocketAddress((InetAddress) NioImpl.getOption(impl, SocketOptions.SO_BINDADDR),
                NioImpl.localPort(impl));
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        InetSocketAddress a = (InetSocketAddress) local;
        NioImpl.bind(delegate, a.getAddress(), a.getPort());
        bound = a.getAddress().isAnyLocalAddress() ? null : a.getAddress();
    }

    @Override
    public SocketAddress remoteAddress() {
        return new InetSocketAddress(NioImpl.address(delegate), NioImpl.port(delegate));
    }

    @Override
    public SetupOptions options() {
        return NioImpl.setupOptions(delegate, bufferSizes);
    }

    @Override
    public void close() throws IOException {
        NioImpl.close(delegate);
    }
}
