package io.sovia.spi.nio;

import io.sovia.spi.backend.SetupOptions;
import io.sovia.spi.backend.ServerBackend;
import io.sovia.spi.backend.SocketBackend;
import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.route.Listeners;
import io.sovia.spi.stats.SoviaStats;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code ServerSocketChannel} apps hold. Accepted connections come back as
 * {@link SoviaSocketChannel}s over whatever backend carried them, and are counted per path.
 */
public final class SoviaServerSocketChannel extends ServerSocketChannel implements Pollable {
    private final ServerBackend backend;
    private final ChannelKeys keys = new ChannelKeys();
    private volatile ServerSocketAdaptor socket;
    /** This listener's side of each accelerated transport; set once by bind. */
    private volatile Listeners listeners = Listeners.NONE;

    SoviaServerSocketChannel(SelectorProvider provider, ServerBackend backend) {
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

    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        ensureOpen();
        backend.bind(local, backlog);
        listeners = Listeners.open((InetSocketAddress) backend.localAddress());
        return this;
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
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
    public ServerSocket socket() {
        ServerSocketAdaptor s = socket;
        if (s == null) {
            s = new ServerSocketAdaptor(this);
            socket = s;
        }
        return s;
    }

    @Override
    public SocketChannel accept() throws IOException {
        ensureBound();
        int changes = backend.bufferSizes().changes();
        return accepted(blocking(backend::accept), changes);
    }

    /** A blocking accept within {@code timeoutMillis} (0 = no limit), for the adaptor. */
    SoviaSocketChannel accept(int timeoutMillis) throws IOException {
        if (!isBlocking()) {
            throw new IllegalBlockingModeException();
        }
        ensureBound();
        int changes = backend.bufferSizes().changes();
        return accepted(blocking(() -> backend.accept(timeoutMillis)), changes);
    }

    /** A backend accept that may block. */
    @FunctionalInterface
    private interface AcceptCall {
        SocketBackend call() throws IOException;
    }

    /** As {@code SoviaSocketChannel.blocking}: begin/end around a blocking accept. */
    private SocketBackend blocking(AcceptCall call) throws IOException {
        if (!isBlocking()) {
            return call.call();
        }
        boolean completed = false;
        begin();
        try {
            SocketBackend b = call.call();
            completed = true;
            return b;
        } catch (ClosedByInterruptException e) {
            completed = closeQuietly();
            throw e;
        } finally {
            end(completed);
        }
    }

    /** {@code changes}: the listener's option count before the kernel's accept ({@link Listeners#claim}). */
    private SoviaSocketChannel accepted(SocketBackend tcp, int changes) throws IOException {
        if (tcp == null) {
            return null;
        }
        SocketBackend b = claim(tcp, changes);
        SoviaStats.connection(b.path());
        return new SoviaSocketChannel(provider(), b);
    }

    /** Whether a client offered this connection on an accelerated path: then it moves there. */
    private SocketBackend claim(SocketBackend tcp, int changes) throws IOException {
        SessionBackend session;
        try {
            session = listeners.claim((InetSocketAddress) tcp.remoteAddress(), (InetSocketAddress) tcp.localAddress(),
                    SetupOptions.of(tcp), backend.bufferSizes(), changes, backend::getOption, true);
        } catch (IOException | RuntimeException e) {
            // the accept fails, and the connection it took must not outlive it
            try {
                tcp.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        if (session == null) {
            return tcp;
        }
        tcp.close();
        return session;
    }

    /** Closes this channel after its backend's JDK channel took an interrupt and closed itself. */
    private boolean closeQuietly() {
        try {
            close();
        } catch (IOException ignored) {
            // the backend is already closed; nothing else to release
        }
        return true;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return backend.localAddress();
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    private void ensureBound() throws IOException {
        ensureOpen();
        if (backend.localAddress() == null) {
            throw new NotYetBoundException();
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        if (block) {
            keys.cancelInnerKeysOfCancelled();
        }
        backend.configureBlocking(block);
    }

    /**
     * The transports' listeners close first: until the port is free no other listener can take it, so no client
     * finds this one's shm socket and then reaches another's port (whose accept would find no hello).
     */
    @Override
    protected void implCloseSelectableChannel() throws IOException {
        listeners.close();
        backend.close();
    }

    @Override
    public int readyOps(int interestOps) {
        return 0;
    }

    @Override
    public void armSelector(Object sleeper, boolean arm) {
        // readiness comes from the kernel
    }

    @Override
    public String toString() {
        return "SoviaServerSocketChannel[" + backend.pollChannel() + ']';
    }
}
