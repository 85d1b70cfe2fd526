package io.sovia.spi.backend;

import io.sovia.spi.config.BufferSizes;
import io.sovia.spi.stats.SoviaStats;
import io.sovia.spi.transport.PathKind;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * The plain path: the JDK's own TCP {@code SocketChannel}, unchanged.
 *
 * <p>Timed operations go through the JDK channel's own socket adaptor, which implements
 * {@code SO_TIMEOUT} and connect timeouts exactly as the JDK does for {@code channel.socket()}.
 */
public final class TcpSocketBackend implements SocketBackend, SetupSocket {
    private final SocketChannel channel;
    private final BufferSizes bufferSizes = new BufferSizes();
    /** Lazily taken from the JDK adaptor; guarded by the app's single-reader rule. */
    private InputStream in;

    /** Wraps an open JDK channel, taking ownership of it. */
    public TcpSocketBackend(SocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public PathKind path() {
        return PathKind.TCP;
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
    public void bind(SocketAddress local) throws IOException {
        channel.bind(local);
    }

    @Override
    public boolean connect(SocketAddress remote) throws IOException {
        return channel.connect(remote);
    }

    @Override
    public void connect(SocketAddress remote, int timeoutMillis) throws IOException {
        channel.socket().connect(remote, timeoutMillis);
    }

    @Override
    public boolean finishConnect() throws IOException {
        return channel.finishConnect();
    }

    @Override
    public boolean isConnected() {
        return channel.isConnected();
    }

    @Override
    public boolean isConnectionPending() {
        return channel.isConnectionPending();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return (int) received(channel.read(dst));
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return received(channel.read(dsts, offset, length));
    }

    @Override
    public int read(byte[] b, int off, int len, int timeoutMillis) throws IOException {
        Socket socket = channel.socket();
        if (socket.getSoTimeout() != timeoutMillis) {
            socket.setSoTimeout(timeoutMillis);
        }
        return (int) received(inputStream().read(b, off, len));
    }

    @Override
    public int available() throws IOException {
        return inputStream().available();
    }

    private InputStream inputStream() throws IOException {
        InputStream s = in;
        if (s == null) {
            s = channel.socket().getInputStream();
            in = s;
        }
        return s;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) sent(channel.write(src));
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return sent(channel.write(srcs, offset, length));
    }

    /** The JDK's own transfer to its own channel: sendfile. */
    @Override
    public long sendFile(FileChannel file, long position, long count) throws IOException {
        return sent(file.transferTo(position, count, channel));
    }

    @Override
    public long receiveFile(FileChannel file, long position, long count) throws IOException {
        return received(file.transferFrom(channel, position, count));
    }

    private static long received(long n) {
        SoviaStats.received(PathKind.TCP, n);
        return n;
    }

    private static long sent(long n) {
        SoviaStats.sent(PathKind.TCP, n);
        return n;
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        channel.socket().sendUrgentData(data);
    }

    @Override
    public void shutdownInput() throws IOException {
        channel.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        channel.shutdownOutput();
    }

    @Override
    public SocketAddress localAddress() throws IOException {
        return channel.getLocalAddress();
    }

    @Override
    public SocketAddress remoteAddress() throws IOException {
        return channel.getRemoteAddress();
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
    public void setOobInline(boolean on) throws IOException {
        channel.socket().setOOBInline(on);
    }

    @Override
    public boolean oobInline() throws IOException {
        return channel.socket().getOOBInline();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public SetupOptions options() {
        return SetupOptions.of(this);
    }
}
