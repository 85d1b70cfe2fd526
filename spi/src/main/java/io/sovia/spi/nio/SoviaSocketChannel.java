package io.sovia.spi.nio;

import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.backend.SetupSocket;
import io.sovia.spi.backend.SocketBackend;
import io.sovia.spi.route.Upgrade;
import io.sovia.spi.transport.PathKind;

import java.nio.channels.FileChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code SocketChannel} apps hold, whatever carries the connection (DESIGN section 2).
 *
 * <p>This class owns the Java semantics: open/closed and shutdown state, blocking-mode bookkeeping,
 * interruption ({@code begin}/{@code end}) and selection keys. Bytes move through a
 * {@link SocketBackend}. Blocking calls are bracketed JDK style: {@code begin()} before the backend call,
 * {@code end(completed)} after it, so an interrupt or an asynchronous close turns into
 * {@link ClosedByInterruptException} or {@code AsynchronousCloseException} and the channel really closes.
 */
public final class SoviaSocketChannel extends SocketChannel implements Pollable {
    /** Replaced only while not connected; volatile so a selector thread sees the current one. */
    private volatile SocketBackend backend;
    private final ChannelKeys keys = new ChannelKeys();
    /** A connect waiting for its TCP setup to complete; guarded by {@code this}. */
    private Upgrade upgrade;
    private volatile boolean inputShutdown;
    private volatile boolean outputShutdown;
    /** Caches for the adaptor, see {@link #localAddressOrNull()}. */
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress remoteAddress;
    /** Created on first use; racing creators produce equal adaptors, one wins. */
    private volatile SocketAdaptor socket;

    SoviaSocketChannel(SelectorProvider provider, SocketBackend backend) {
        super(provider);
        this.backend = backend;
    }

    @Override
    public SelectableChannel pollChannel() {
        return backend.pollChannel();
    }

    @Override
    public ChannelKeys selectorKeys() {
        return keys;
    }

    /** The path this channel's bytes take. */
    public PathKind path() {
        return backend.path();
    }

    @Override
    public Socket socket() {
        SocketAdaptor s = socket;
        if (s == null) {
            s = SocketAdaptor.create(this);
            socket = s;
        }
        return s;
    }

    @Override
    public SocketChannel bind(SocketAddress local) throws IOException {
        ensureOpen();
        backend.bind(local);
        return this;
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        Objects.requireNonNull(name);
        ensureOpen();
        backend.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        Objects.requireNonNull(name);
        ensureOpen();
        return backend.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return backend.supportedOptions();
    }

    @Override
    public SocketChannel shutdownInput() throws IOException {
        ensureOpen();
        ensureConnected();
        backend.shutdownInput();
        inputShutdown = true;
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        ensureOpen();
        ensureConnected();
        backend.shutdownOutput();
        outputShutdown = true;
        return this;
    }

    boolean isInputShutdown() {
        return inputShutdown;
    }

    boolean isOutputShutdown() {
        return outputShutdown;
    }

    @Override
    public boolean isConnected() {
        // a session stays connected after close, the JDK's channel does not
        return isOpen() && backend.isConnected();
    }

    @Override
    public boolean isConnectionPending() {
        return backend.isConnectionPending();
    }

    @Override
    public boolean connect(SocketAddress remote) throws IOException {
        ensureOpen();
        beginConnect(remote);
        return endConnect(connectStep(() -> backend.connect(remote) ? 1 : 0));
    }

    /** A blocking connect within {@code timeoutMillis} (0 = no limit), for the socket adaptor. */
    void connect(SocketAddress remote, int timeoutMillis) throws IOException {
        if (!isBlocking()) {
            throw new IllegalBlockingModeException();
        }
        ensureOpen();
        beginConnect(remote);
        connectStep(() -> {
            backend.connect(remote, timeoutMillis);
            return 1;
        });
        endConnect(true);
    }

    /** Routes the connect, and on an accelerated path offers it before the TCP setup starts. */
    private void beginConnect(SocketAddress remote) throws IOException {
        Objects.requireNonNull(remote);
        if (backend.isConnected()) {
            throw new AlreadyConnectedException();
        }
        if (backend.isConnectionPending()) {
            throw new ConnectionPendingException();
        }
        Upgrade u = Upgrade.begin(remote, (SetupSocket) backend);
        synchronized (this) {
            upgrade = u;
        }
    }

    /** The TCP setup is connected: move onto the session, and tell selectors the poll source changed. */
    private synchronized boolean endConnect(boolean connected) throws IOException {
        if (connected && upgrade != null) {
            Upgrade u = upgrade;
            upgrade = null;
            SessionBackend session;
            try {
                session = u.complete(true);
            } catch (IOException e) {
                closeQuietly();
                throw e;
            }
            if (session != null) {
                session.configureBlocking(isBlocking());
                backend = session;
                keys.backendChanged();
            }
        }
        return connected;
    }

    @Override
    public boolean finishConnect() throws IOException {
        ensureOpen();
        if (backend.isConnected()) {
            return true;
        }
        if (!backend.isConnectionPending()) {
            throw new NoConnectionPendingException();
        }
        return endConnect(connectStep(() -> backend.finishConnect() ? 1 : 0));
    }

    /**
     * Runs one step of a connect. A connect that fails closes the channel, as the JDK specifies; the
     * backend's JDK channel closes itself, but this channel must follow.
     */
    private boolean connectStep(BlockingCall step) throws IOException {
        try {
            return blocking(step) != 0;
        } catch (IOException e) {
            synchronized (this) {
                if (upgrade != null) {
                    upgrade.cancel();
                    upgrade = null;
                }
            }
            closeQuietly();
            throw e;
        }
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return backend.remoteAddress();
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return backend.localAddress();
    }

    /**
     * The bound address for adaptors, which must not throw and, like the JDK's, still answer after
     * close; null when never bound. An address, once known, never changes, so it is cached; a closed
     * backend may no longer know it, hence close caches it first.
     */
    InetSocketAddress localAddressOrNull() {
        InetSocketAddress a = localAddress;
        if (a == null) {
            try {
                a = (InetSocketAddress) backend.localAddress();
                localAddress = a;
            } catch (IOException e) {
                return null;
            }
        }
        return a;
    }

    /** The connected address for adaptors, also after close; null when never connected. */
    InetSocketAddress remoteAddressOrNull() {
        InetSocketAddress a = remoteAddress;
        if (a == null) {
            try {
                a = (InetSocketAddress) backend.remoteAddress();
                remoteAddress = a;
            } catch (IOException e) {
                return null;
            }
        }
        return a;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst);
        ensureReadable();
        return io(SocketBackend::read, SocketBackend::readNow, dst, true);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        ensureReadable();
        return blocking(() -> backend.read(dsts, offset, length));
    }

    /** A blocking read for the socket adaptor's stream, honouring {@code SO_TIMEOUT}. */
    int read(byte[] b, int off, int len, int timeoutMillis) throws IOException {
        if (!isBlocking()) {
            throw new IllegalBlockingModeException();
        }
        ensureReadable();
        return (int) blocking(() -> backend.read(b, off, len, timeoutMillis));
    }

    int available() throws IOException {
        ensureOpen();
        return inputShutdown ? 0 : backend.available();
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src);
        ensureWritable();
        return io(SocketBackend::write, SocketBackend::writeNow, src, false);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        ensureWritable();
        return blocking(() -> backend.write(srcs, offset, length));
    }

    /** {@code file.transferTo(position, count, this)}, for {@link FileTransfers}. */
    long sendFile(FileChannel file, long position, long count) throws IOException {
        ensureWritable();
        return blocking(() -> backend.sendFile(file, position, count));
    }

    /** {@code file.transferFrom(this, position, count)}, for {@link FileTransfers}. */
    long receiveFile(FileChannel file, long position, long count) throws IOException {
        ensureReadable();
        return blocking(() -> backend.receiveFile(file, position, count));
    }

    void sendUrgentData(int data) throws IOException {
        ensureWritable();
        backend.sendUrgentData(data);
    }

    void setOobInline(boolean on) throws IOException {
        ensureOpen();
        backend.setOobInline(on);
    }

    boolean oobInline() throws IOException {
        ensureOpen();
        return backend.oobInline();
    }

    /** A read or write of one buffer; method references to it are constants, so the data path allocates nothing. */
    @FunctionalInterface
    private interface BufferIo {
        int apply(SocketBackend backend, ByteBuffer buffer) throws IOException;
    }

    /** Any other backend call that may block. */
    @FunctionalInterface
    private interface BlockingCall {
        long call() throws IOException;
    }

    /**
     * A read or write: in blocking mode first tried without waiting ({@code now}), which needs no
     * {@code begin}/{@code end} (two monitor enters, a third of a small write's cost) unless it must wait;
     * an interrupted thread always takes the bracketed way, which closes the channel as the JDK does.
     */
    private int io(BufferIo op, BufferIo now, ByteBuffer buffer, boolean read) throws IOException {
        if (!isBlocking()) {
            return op.apply(backend, buffer);
        }
        int done = 0;
        if (!Thread.currentThread().isInterrupted()) {
            int n = now.apply(backend, buffer);
            if (n != SocketBackend.CANNOT_TRY) {
                if (n < 0 || !buffer.hasRemaining() || (read && n > 0)) {
                    return n;
                }
                done = n; // a write that took part of the buffer: the rest waits for room
            }
        }
        return done + (int) blocking(() -> op.apply(backend, buffer));
    }

    /**
     * Runs {@code call}, bracketed by {@code begin}/{@code end} when the channel is blocking, so an
     * interrupt or an asynchronous close ends it with the JDK's exceptions and a closed channel.
     */
    private long blocking(BlockingCall call) throws IOException {
        if (!isBlocking()) {
            return call.call();
        }
        boolean completed = false;
        begin();
        try {
            long n = call.call();
            completed = true;
            return n;
        } catch (ClosedByInterruptException e) {
            completed = closeQuietly();
            throw e;
        } finally {
            end(completed);
        }
    }

    /**
     * Closes this channel after its backend closed itself: on an interrupt taken by the backend's own JDK
     * channel (its interruptor replaced ours while it blocked), or on a failed connect. Returns true so
     * that {@code end} does not turn an interrupt into an AsynchronousCloseException.
     */
    private boolean closeQuietly() {
        try {
            close();
        } catch (IOException ignored) {
            // the backend is already closed; nothing else to release
        }
        return true;
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    private void ensureConnected() {
        if (!backend.isConnected()) {
            throw new NotYetConnectedException();
        }
    }

    private void ensureReadable() throws ClosedChannelException {
        ensureOpen();
        ensureConnected();
    }

    private void ensureWritable() throws ClosedChannelException {
        ensureOpen();
        ensureConnected();
        if (outputShutdown) {
            throw new ClosedChannelException();
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        if (block) {
            keys.cancelInnerKeysOfCancelled();
        }
        backend.configureBlocking(block);
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        synchronized (this) {
            if (upgrade != null) {
                upgrade.cancel();
                upgrade = null;
            }
        }
        localAddressOrNull();
        remoteAddressOrNull();
        backend.close();
    }

    @Override
    public int readyOps(int interestOps) {
        return backend.readyOps(interestOps);
    }

    @Override
    public void armSelector(Object sleeper, boolean arm) {
        backend.armSelector(sleeper, arm);
    }

    @Override
    public long wakeWord() {
        return backend.wakeWord();
    }

    @Override
    public void wakeWordChanged() {
        backend.wakeWordChanged();
    }

    @Override
    public SelectableChannel doorbell() {
        return backend.doorbell();
    }

    @Override
    public boolean doorbellRung() {
        return backend.doorbellRung();
    }

    @Override
    public String toString() {
        return "SoviaSocketChannel[" + backend.path().key() + ' ' + backend.pollChannel() + ']';
    }
}
