package io.sovia.spi.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.ServerSocketChannel;
import java.util.Set;

/**
 * {@code serverChannel.socket()}: a {@link ServerSocket} view of a {@link SoviaServerSocketChannel} that
 * behaves as the JDK's own adaptor, with {@code socket().getChannel() == channel}.
 */
final class ServerSocketAdaptor extends ServerSocket {
    private final SoviaServerSocketChannel channel;
    private volatile int timeout;

    ServerSocketAdaptor(SoviaServerSocketChannel channel) {
        super(new DummySocketImpl());
        this.channel = channel;
    }

    private InetSocketAddress local() {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void bind(SocketAddress endpoint) throws IOException {
        bind(endpoint, 50);
    }

    @Override
    public void bind(SocketAddress endpoint, int backlog) throws IOException {
        try {
            channel.bind(endpoint == null ? new InetSocketAddress(0) : endpoint, backlog);
        } catch (Exception e) {
            throw NetExceptions.translate(e);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress local = local();
        return local == null ? null : local.getAddress();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = local();
        return local == null ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return local();
    }

    @Override
    public Socket accept() throws IOException {
        try {
            int t = timeout;
            if (t > 0) {
                return channel.accept(t).socket();
            }
            // timeout 0 accepts if possible even when non-blocking: the JDK's long-standing behaviour
            java.nio.channels.SocketChannel accepted = channel.accept();
            if (accepted == null) {
                throw new IllegalBlockingModeException();
            }
            return accepted.socket();
        } catch (Exception e) {
            throw NetExceptions.translateForAccept(e);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public ServerSocketChannel getChannel() {
        return channel;
    }

    @Override
    public boolean isBound() {
        return local() != null;
    }

    @Override
    public boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (!channel.isOpen()) {
            throw new SocketException("Socket is closed");
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        this.timeout = timeout;
    }

    @Override
    public int getSoTimeout() throws SocketException {
        if (!channel.isOpen()) {
            throw new SocketException("Socket is closed");
        }
        return timeout;
    }

    private <T> void set(SocketOption<T> name, T value) throws SocketException {
        try {
            channel.setOption(name, value);
        } catch (IOException e) {
            throw NetExceptions.toSocketException(e);
        }
    }

    private <T> T get(SocketOption<T> name) throws SocketException {
        try {
            return channel.getOption(name);
        } catch (IOException e) {
            throw NetExceptions.toSocketException(e);
        }
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        set(StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return get(StandardSocketOptions.SO_REUSEADDR);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("size cannot be 0 or negative");
        }
        set(StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return get(StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        // no-op, as in the JDK
    }

    @Override
    public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
        channel.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return channel.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return channel.supportedOptions();
    }

    @Override
    public String toString() {
        InetSocketAddress local = local();
        if (local == null) {
            return "ServerSocket[unbound]";
        }
        return "ServerSocket[addr=" + local.getAddress() + ",localport=" + local.getPort() + "]";
    }
}
