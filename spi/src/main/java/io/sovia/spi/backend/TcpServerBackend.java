package io.sovia.spi.backend;

import io.sovia.spi.config.BufferSizes;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

/** The plain listener: the JDK's own {@code ServerSocketChannel}. */
public final class TcpServerBackend implements ServerBackend {
    private final ServerSocketChannel channel;
    private final BufferSizes bufferSizes = new BufferSizes();

    /** Wraps an open JDK server channel, taking ownership of it. */
    public TcpServerBackend(ServerSocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public SelectableChannel pollChannel() {
        return channel;
    }

    @Override
    public void configureBlocking(boolean block) throws IOException {
        channel.configureBlocking(block);
    }

    @Override
    public void bind(SocketAddress local, int backlog) throws IOException {
        channel.bind(local, backlog);
    }

    @Override
    public SocketAddress localAddress() throws IOException {
        return channel.getLocalAddress();
    }

    @Override
    public SocketBackend accept() throws IOException {
        SocketChannel accepted = channel.accept();
        return accepted == null ? null : new TcpSocketBackend(accepted);
    }

    @Override
    public SocketBackend accept(int timeoutMillis) throws IOException {
        ServerSocket socket = channel.socket();
        if (socket.getSoTimeout() != timeoutMillis) {
            socket.setSoTimeout(timeoutMillis);
        }
        return new TcpSocketBackend(socket.accept().getChannel());
    }

    @Override
    public <T> void setOption(SocketOption<T> name, T value) throws IOException {
        channel.setOption(name, value);
        bufferSizes.onSet(name, value);
    }

    @Override
    public BufferSizes bufferSizes() {
        return bufferSizes;
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
    public void close() throws IOException {
        channel.close();
    }
}
