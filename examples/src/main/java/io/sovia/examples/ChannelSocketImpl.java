package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link SocketImpl} that {@link FactoryApp}'s own factory hands out: a TCP stream socket built
 * on a {@link SocketChannel} (connecting or accepted side) or a {@link ServerSocketChannel}
 * (listening side). Blocking I/O, SO_TIMEOUT and connect timeouts come from the channels' socket
 * adaptors. Only what the demo needs is supported: stream sockets, SO_TIMEOUT and TCP_NODELAY.
 */
final class ChannelSocketImpl extends SocketImpl {

    private final AtomicInteger connects;
    /** Set by {@code bind}; used by {@code listen} (server) or {@code connect} (client). */
    private InetSocketAddress bindAddress;
    private SocketChannel channel;
    private ServerSocketChannel listener;
    private int timeoutMillis;
    private boolean noDelay;

    /** @param connects counts the outgoing connections made through this kind of impl */
    ChannelSocketImpl(AtomicInteger connects) {
        this.connects = connects;
    }

    @Override
    protected void create(boolean stream) throws IOException {
        if (!stream) {
            throw new SocketException("only stream sockets are supported");
        }
    }

    @Override
    protected void connect(String host, int port) throws IOException {
        connect(new InetSocketAddress(host, port), 0);
    }

    @Override
    protected void connect(InetAddress host, int port) throws IOException {
        connect(new InetSocketAddress(host, port), 0);
    }

    @Override
    protected void connect(SocketAddress remote, int timeout) throws IOException {
        SocketChannel opened = SocketChannel.open();
        try {
            if (bindAddress != null) {
                opened.bind(bindAddress);
            }
            opened.socket().connect(remote, timeout);
            adopt(opened);
        } catch (IOException e) {
            opened.close();
            throw e;
        }
        connects.incrementAndGet();
    }

    @Override
    protected void bind(InetAddress host, int port) {
        bindAddress = new InetSocketAddress(host, port); // bound for real once we know which side we are
    }

    @Override
    protected void listen(int backlog) throws IOException {
        listener = ServerSocketChannel.open();
        listener.bind(bindAddress, backlog);
        InetSocketAddress local = (InetSocketAddress) listener.getLocalAddress();
        address = local.getAddress();
        localport = local.getPort();
    }

    @Override
    protected void accept(SocketImpl target) throws IOException {
        if (!(target instanceof ChannelSocketImpl accepted)) {
            throw new SocketException("cannot accept into a " + target.getClass().getName());
        }
        listener.socket().setSoTimeout(timeoutMillis);
        try {
            accepted.adopt(listener.socket().accept().getChannel());
        } catch (ClosedChannelException e) {
            throw new SocketException("Socket closed"); // what ServerSocket.accept callers expect
        }
    }

    private void adopt(SocketChannel connected) throws IOException {
        channel = connected;
        InetSocketAddress remote = (InetSocketAddress) connected.getRemoteAddress();
        address = remote.getAddress();
        port = remote.getPort();
        localport = ((InetSocketAddress) connected.getLocalAddress()).getPort();
        connected.socket().setSoTimeout(timeoutMillis);
        connected.socket().setTcpNoDelay(noDelay);
    }

    @Override
    protected InputStream getInputStream() throws IOException {
        return connectedChannel().socket().getInputStream();
    }

    @Override
    protected OutputStream getOutputStream() throws IOException {
        return connectedChannel().socket().getOutputStream();
    }

    @Override
    protected int available() throws IOException {
        return connectedChannel().socket().getInputStream().available();
    }

    @Override
    protected void shutdownInput() throws IOException {
        connectedChannel().shutdownInput();
    }

    @Override
    protected void shutdownOutput() throws IOException {
        connectedChannel().shutdownOutput();
    }

    private SocketChannel connectedChannel() throws SocketException {
        if (channel == null) {
            throw new SocketException("not connected");
        }
        return channel;
    }

    @Override
    protected void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
        if (listener != null) {
            listener.close();
        }
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        throw new SocketException("urgent data is not supported");
    }

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        switch (optID) {
            case SO_TIMEOUT -> {
                timeoutMillis = (Integer) value;
                if (channel != null) {
                    channel.socket().setSoTimeout(timeoutMillis);
                }
            }
            case TCP_NODELAY -> {
                noDelay = (Boolean) value;
                if (channel != null) {
                    channel.socket().setTcpNoDelay(noDelay);
                }
            }
            default -> throw new SocketException("option " + optID + " is not supported");
        }
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        return switch (optID) {
            case SO_TIMEOUT -> timeoutMillis;
            case TCP_NODELAY -> noDelay;
            case SO_BINDADDR -> channel != null ? channel.socket().getLocalAddress()
                    : listener != null ? listener.socket().getInetAddress()
                    : bindAddress != null ? bindAddress.getAddress() : null;
            default -> throw new SocketException("option " + optID + " is not supported");
        };
    }
}
