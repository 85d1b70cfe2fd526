package io.sovia.spi.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * {@code channel.socket()}: a {@link Socket} view of a {@link SoviaSocketChannel}, as the JDK's own
 * adaptor behaves (same checks, same exception types and messages), with
 * {@code socket().getChannel() == channel}. Every public method is overridden; the superclass's impl
 * is a {@link DummySocketImpl} that is never used.
 */
final class SocketAdaptor extends Socket {
    private final SoviaSocketChannel channel;
    private volatile int timeout;

    private SocketAdaptor(SoviaSocketChannel channel) throws SocketException {
        super(new DummySocketImpl());
        this.channel = channel;
    }

    static SocketAdaptor create(SoviaSocketChannel channel) {
        try {
            return new SocketAdaptor(channel);
        } catch (SocketException e) {
            // Socket(SocketImpl) declares it but only a security manager could throw it
            throw new InternalError(e);
        }
    }

    private InetSocketAddress local() {
        return channel.localAddressOrNull();
    }

    private InetSocketAddress remote() {
        return channel.remoteAddressOrNull();
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        connect(endpoint, 0);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        if (endpoint == null) {
            throw new IllegalArgumentException("connect: The address can't be null");
        }
        if (endpoint instanceof InetSocketAddress && ((InetSocketAddress) endpoint).isUnresolved()) {
            if (!channel.isOpen()) {
                throw new SocketException("Socket is closed");
            }
            if (channel.isConnected()) {
                throw new SocketException("Already connected");
            }
            close();
            throw new UnknownHostException(((InetSocketAddress) endpoint).getHostName());
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        try {
            channel.connect(endpoint, timeout);
        } catch (Exception e) {
            throw NetExceptions.translate(e);
        }
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        try {
            channel.bind(bindpoint);
        } catch (Exception e) {
            throw NetExceptions.translate(e);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress remote = remote();
        return remote == null ? null : remote.getAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        InetSocketAddress local = channel.isOpen() ? local() : null;
        return local != null ? local.getAddress() : new InetSocketAddress(0).getAddress();
    }

    @Override
    public int getPort() {
        InetSocketAddress remote = remote();
        return remote == null ? 0 : remote.getPort();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = local();
        return local == null ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return remote();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return local();
    }

    @Override
    public SocketChannel getChannel() {
        return channel;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        ensureUsable();
        if (channel.isInputShutdown()) {
            throw new SocketException("Socket input is shutdown");
        }
        return new AdaptorInputStream(channel, this::timeout);
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        ensureUsable();
        if (channel.isOutputShutdown()) {
            throw new SocketException("Socket output is shutdown");
        }
        return new AdaptorOutputStream(channel);
    }

    private void ensureUsable() throws SocketException {
        if (!channel.isOpen()) {
            throw new SocketException("Socket is closed");
        }
        if (!channel.isConnected()) {
            throw new SocketException("Socket is not connected");
        }
    }

    int timeout() {
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
    public void setTcpNoDelay(boolean on) throws SocketException {
        set(StandardSocketOptions.TCP_NODELAY, on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return get(StandardSocketOptions.TCP_NODELAY);
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        set(StandardSocketOptions.SO_LINGER, on ? linger : -1);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return get(StandardSocketOptions.SO_LINGER);
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        try {
            channel.sendUrgentData(data);
        } catch (Exception e) {
            throw NetExceptions.translate(e);
        }
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        try {
            channel.setOobInline(on);
        } catch (IOException e) {
            throw NetExceptions.toSocketException(e);
        }
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        try {
            return channel.oobInline();
        } catch (IOException e) {
            throw NetExceptions.toSocketException(e);
        }
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

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid send size");
        }
        set(StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return get(StandardSocketOptions.SO_SNDBUF);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid receive size");
        }
        set(StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return get(StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        set(StandardSocketOptions.SO_KEEPALIVE, on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return get(StandardSocketOptions.SO_KEEPALIVE);
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        set(StandardSocketOptions.IP_TOS, tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return get(StandardSocketOptions.IP_TOS);
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
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public void shutdownInput() throws IOException {
        try {
            channel.shutdownInput();
        } catch (Exception e) {
            throw NetExceptions.translate(e);
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        try {
            channel.shutdownOutput();
        } catch (Exception e) {
            throw NetExceptions.translate(e);
        }
    }

    @Override
    public boolean isConnected() {
        return channel.isConnected();
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
    public boolean isInputShutdown() {
        return channel.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return channel.isOutputShutdown();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        // no-op, as in the JDK
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
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
        if (channel.isConnected()) {
            return "Socket[addr=" + getInetAddress() + ",port=" + getPort() + ",localport=" + getLocalPort() + "]";
        }
        return "Socket[unconnected]";
    }
}
