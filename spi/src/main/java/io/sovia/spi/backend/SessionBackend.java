package io.sovia.spi.backend;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Session;
import io.sovia.spi.engine.SessionService;
import io.sovia.spi.engine.SpinThenSleep;
import io.sovia.spi.engine.VirtualThreads;
import io.sovia.spi.ops.LiveRegistry;
import io.sovia.spi.transport.PathKind;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * A connected socket carried by a {@link Session} on a user-level link (jvm or shm).
 *
 * <p>Blocking calls wait with {@link SpinThenSleep}. Interruption is the owner's business: a channel
 * owner ({@code interruptible}) has its interruptor close the backend, which ends the wait with
 * {@link AsynchronousCloseException}; a java.net owner is not interruptible on a platform thread, as the
 * JDK's own impl, and on a virtual thread throws {@link InterruptedIOException}, as the JDK's impl does
 * there, which {@code java.net.Socket} turns into closing the socket and "Closed by interrupt".
 * Socket options the engine does not use are kept so apps read back what they set.
 */
public final class SessionBackend implements SocketBackend {
    private final Session session;
    private final PathKind path;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final AutoCloseable setup;
    private final boolean interruptible;
    private final SpinThenSleep waiter = new SpinThenSleep(SoviaConfig.spinNanos(), SoviaConfig.spinYieldsToBusyCores());
    /** Values set by the app or read from {@link #setupOptions} so far. */
    private final Map<SocketOption<?>, Object> options = new ConcurrentHashMap<>();
    private final SetupOptions setupOptions;
    private final Set<SocketOption<?>> supported;
    private final BooleanSupplier readable;
    private final BooleanSupplier writable;
    private final BooleanSupplier closedCheck = this::isClosed;
    /** This connection in the JVM's live listing ({@code sovia ss}, MBeans), from here until the link is released. */
    private final LiveRegistry.Connection live;
    private volatile boolean blocking = true;
    private volatile boolean closed;
    private volatile boolean oobInline;

    /**
     * @param setup        what set the connection up and lives as long as it (the client's loopback TCP
     *                     socket), closed with it; may be null
     * @param options      the setup socket's options, read when first asked and kept
     * @param interruptible whether blocking calls end when the thread is interrupted
     */
    public SessionBackend(Session session, PathKind path, InetSocketAddress local, InetSocketAddress remote,
                          AutoCloseable setup, SetupOptions options, boolean interruptible) throws IOException {
        this.session = session;
        this.path = path;
        this.local = local;
        this.remote = remote;
        this.setup = setup;
        this.interruptible = interruptible;
        this.setupOptions = options;
        this.supported = Set.copyOf(options.supported());
        this.readable = session::isReadable;
        this.writable = session::isWritable;
        session.setNoDelay(Boolean.TRUE.equals(option(StandardSocketOptions.TCP_NODELAY)));
        SessionService.get().register(session);
        live = LiveRegistry.opened(path, local, remote, session);
    }

    public Session session() {
        return session;
    }

    /**
     * The option's value: as the app set it, else the setup socket's, read now and kept (a value set meanwhile
     * wins). One the setup socket cannot report reads as null, as before.
     */
    private Object option(SocketOption<?> name) {
        Object value = options.get(name);
        if (value == null && supported.contains(name)) {
            try {
                Object read = setupOptions.get(name);
                if (read != null) {
                    value = options.putIfAbsent(name, read);
                    value = value == null ? read : value;
                }
            } catch (IOException | UnsupportedOperationException e) {
                // an option the setup socket cannot report is one the session need not keep
            }
        }
        return value;
    }

    @Override
    public PathKind path() {
        return path;
    }

    @Override
    public SelectableChannel pollChannel() {
        return null;
    }

    @Override
    public int readyOps(int interestOps) {
        int ready = 0;
        if ((interestOps & SelectionKey.OP_READ) != 0 && session.isReadable()) {
            ready |= SelectionKey.OP_READ;
        }
        if ((interestOps & SelectionKey.OP_WRITE) != 0 && session.isWritable()) {
            ready |= SelectionKey.OP_WRITE;
        }
        return ready;
    }

    @Override
    public void armSelector(Object sleeper, boolean arm) {
        if (arm) {
            session.waiters().add(sleeper);
        } else {
            session.waiters().remove(sleeper);
        }
    }

    @Override
    public SelectableChannel doorbell() {
        return session.link().doorbell();
    }

    @Override
    public long wakeWord() {
        return session.link().wakeWord();
    }

    @Override
    public void wakeWordChanged() {
        session.waiters().wakeWordChanged();
    }

    @Override
    public boolean doorbellRung() {
        return session.link().doorbellReadable();
    }

    @Override
    public void configureBlocking(boolean block) {
        blocking = block;
    }

    @Override
    public void bind(SocketAddress local) {
        throw new AlreadyBoundException();
    }

    @Override
    public boolean connect(SocketAddress remote) {
        throw new AlreadyConnectedException();
    }

    @Override
    public void connect(SocketAddress remote, int timeoutMillis) {
        throw new AlreadyConnectedException();
    }

    @Override
    public boolean finishConnect() {
        return true;
    }

    @Override
    public boolean isConnected() {
        return true;
    }

    @Override
    public boolean isConnectionPending() {
        return false;
    }

    private boolean isClosed() {
        return closed;
    }

    /** A blocking call on a backend closed by another thread (or by an interrupt) ends like the JDK's. */
    private void ensureOpen() throws AsynchronousCloseException {
        if (closed) {
            throw new AsynchronousCloseException();
        }
    }

    private void awaitReadable(long deadline) throws IOException {
        await(readable, deadline);
    }

    private void awaitWritable() throws IOException {
        await(writable, 0);
    }

    private void await(BooleanSupplier ready, long deadline) throws IOException {
        if (!waiter.await(session.waiters(), ready, closedCheck, deadline, interruptible)) {
            endedWait();
        }
    }

    /**
     * A wait ended unready: by a close, or by an interrupt. A channel's interruptor may not have seen it,
     * because it came while the thread slept in a selector (whose interruptor stands in for the
     * channel's while it selects); the channel closes itself on this exception, as the JDK's would.
     * java.net on a virtual thread gets what the JDK's impl throws there.
     */
    private void endedWait() throws IOException {
        if (closed) {
            throw new AsynchronousCloseException();
        }
        if (Thread.currentThread().isInterrupted()) {
            if (interruptible) {
                throw new ClosedByInterruptException();
            }
            if (VirtualThreads.current()) {
                throw new InterruptedIOException();
            }
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        while (true) {
            ensureOpen();
            int n = session.read(dst);
            if (n != 0 || !blocking || !dst.hasRemaining()) {
                return n;
            }
            awaitReadable(0);
        }
    }

    @Override
    public int readNow(ByteBuffer dst) throws IOException {
        ensureOpen();
        return session.read(dst);
    }

    @Override
    public int writeNow(ByteBuffer src) throws IOException {
        ensureOpen();
        // a blocking channel's first try: what it leaves, the blocking write that follows takes
        return session.writePart(src, false);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            if (!dsts[i].hasRemaining()) {
                continue;
            }
            int n = total == 0 ? read(dsts[i]) : session.read(dsts[i]);
            if (n < 0) {
                return total == 0 ? -1 : total;
            }
            total += n;
            if (dsts[i].hasRemaining()) {
                break;
            }
        }
        return total;
    }

    @Override
    public int read(byte[] b, int off, int len, int timeoutMillis) throws IOException {
        long deadline = timeoutMillis == 0 ? 0 : System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            ensureOpen();
            int n = session.read(b, off, len);
            if (n != 0) {
                return n;
            }
            awaitReadable(deadline);
            if (deadline != 0 && System.nanoTime() - deadline >= 0 && !session.isReadable()) {
                throw new SocketTimeoutException("Read timed out");
            }
        }
    }

    @Override
    public int available() {
        return session.available();
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return write(src, false);
    }

    /**
     * Writes {@code src}; when blocking, all of it, other threads' writes waiting meanwhile, and until the buffers
     * after it ({@code more}) are written too.
     */
    private int write(ByteBuffer src, boolean more) throws IOException {
        if (!blocking) {
            ensureOpen();
            return session.write(src);
        }
        int total = 0;
        try {
            while (true) {
                ensureOpen();
                total += session.writePart(src, more);
                if (!src.hasRemaining()) {
                    return total;
                }
                awaitWritable();
            }
        } catch (IOException | RuntimeException | Error e) {
            session.endWrite();
            throw e;
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        int last = offset + length - 1;
        for (int i = offset; i <= last; i++) {
            total += write(srcs[i], i < last);
            if (srcs[i].hasRemaining()) {
                break;
            }
        }
        return total;
    }

    /**
     * Reads the file into the link's frames ({@link Session#writeFile}) up to its size as the call begins, as the
     * JDK's transfer reads up to it. As the JDK's, a blocking call waits only while the send buffer is full: a wait
     * for it to drain, so that the next round read into frames again, slept and woke once per window, and with every
     * core busy each wake-up waited for its turn (64 KiB transfers on one busy core at less than half the rate).
     */
    @Override
    public long sendFile(FileChannel file, long position, long count) throws IOException {
        long end = position + Math.min(count, Math.max(0, file.size() - position));
        long at = position;
        try {
            while (at < end) {
                ensureOpen();
                long n = session.writeFile(file, at, end - at, blocking);
                if (n < 0) {
                    break;
                }
                at += n;
                if (!blocking) {
                    break;
                }
                if (at < end) {
                    awaitWritable();
                }
            }
            return at - position;
        } catch (IOException | RuntimeException | Error e) {
            session.endWrite();
            throw e;
        }
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        while (true) {
            ensureOpen();
            if (session.sendUrgentData(data)) {
                return;
            }
            awaitWritable();
        }
    }

    @Override
    public void shutdownInput() {
        session.shutdownInput();
    }

    @Override
    public void shutdownOutput() {
        session.shutdownOutput();
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public <T> void setOption(SocketOption<T> name, T value) throws IOException {
        if (!supported.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        if (value == null || !name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
        if ((name == StandardSocketOptions.SO_RCVBUF || name == StandardSocketOptions.SO_SNDBUF) && (Integer) value < 0) {
            throw new IllegalArgumentException("Invalid " + name + " value: " + value);
        }
        if (name == StandardSocketOptions.IP_TOS && ((Integer) value < 0 || (Integer) value > 255)) {
            throw new IllegalArgumentException("Invalid IP_TOS value: " + value);
        }
        if (name == StandardSocketOptions.TCP_NODELAY) {
            session.setNoDelay((Boolean) value);
        }
        options.put(name, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) {
        if (!supported.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        return (T) option(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return supported;
    }

    @Override
    public void setOobInline(boolean on) {
        oobInline = on;
        session.setOobInline(on);
    }

    @Override
    public boolean oobInline() {
        return oobInline;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        live.appClosed();
        int linger = option(StandardSocketOptions.SO_LINGER) instanceof Integer seconds ? seconds : -1;
        if (linger == 0) {
            session.abort();
        } else {
            session.close();
        }
        session.waiters().wakeAll();
        if (linger > 0 && blocking) {
            awaitHandover(linger);
        }
        if (session.isFinished()) {
            release();
        } else {
            SessionService.get().linger(session, this::release);
        }
    }

    /**
     * SO_LINGER on a blocking socket: close waits up to {@code seconds} until the peer has everything written and
     * the FIN (the kernel waits for their ACK; here the peer's ring holds them); the handover goes on after that,
     * as the kernel's does. An interrupt does not end the wait, as it does not end the kernel's.
     */
    private void awaitHandover(int seconds) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        waiter.await(session.waiters(), session::isFinished, () -> false, deadline, false);
    }

    private void release() {
        session.closeLink();
        live.released();
        SessionService.get().released(session);
        if (setup != null) {
            try {
                setup.close();
            } catch (Exception ignored) {
                // the connection is gone either way; nothing is left to release
            }
        }
    }

    @Override
    public String toString() {
        return "SessionBackend[" + path.key() + ' ' + local + " -> " + remote + ' ' + session + ']';
    }
}
