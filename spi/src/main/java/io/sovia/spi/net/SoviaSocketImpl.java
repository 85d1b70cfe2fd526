package io.sovia.spi.net;

import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.backend.SetupSocket;
import io.sovia.spi.config.BufferSizes;
import io.sovia.spi.route.Listeners;
import io.sovia.spi.route.Upgrade;
import io.sovia.spi.stats.SoviaStats;
import io.sovia.spi.transport.PathKind;
import sun.net.PlatformSocketImpl;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.SocketOptions;
import java.net.StandardSocketOptions;
import java.util.Set;

/**
 * The {@code SocketImpl} behind {@code java.net.Socket} and {@code ServerSocket} under the agent.
 *
 * <p>Every socket starts as the JDK's own {@code NioSocketImpl}, to which all calls are delegated, so
 * java.net behaviour (reads not interruptible on platform threads, {@code SO_TIMEOUT}, messages, SOCKS
 * through the JDK's delegating impls) is the JDK's. A connection the Router sends down the jvm path
 * still makes its loopback TCP setup through that impl, then moves onto a session: from then on the
 * streams, options and close go to the {@link SessionBackend}. It implements
 * {@link PlatformSocketImpl} because {@code ServerSocket} only accepts into platform impls.
 *
 * <p>Threading: {@link #session} is set once, by the connecting or accepting thread, before the
 * {@code Socket} hands the impl to anyone else.
 */
public final class SoviaSocketImpl extends SocketImpl implements PlatformSocketImpl {
    private final SocketImpl delegate;
    /** What the app set before connecting (a socket) or accepting (a listener); sizes the sessions. */
    private final BufferSizes bufferSizes = new BufferSizes();
    private volatile SessionBackend session;
    /** Closes {@link #session} once, on close or when this impl is dropped; set with it. */
    private volatile java.lang.ref.Cleaner.Cleanable sessionCloser;
    /** A closed session still hands over what was written, and still answers; java.net must not. */
    private volatile boolean closed;
    private volatile int timeout;
    /** A listener's side of each accelerated transport; set once by listen. */
    private volatile Listeners listeners = Listeners.NONE;

    SoviaSocketImpl(boolean server) {
        this.delegate = NioImpl.newImpl(server);
    }

    @Override
    protected void create(boolean stream) throws IOException {
        NioImpl.create(delegate, stream);
        fd = NioImpl.fd(delegate);
    }

    @Override
    protected void connect(String host, int port) throws IOException {
        connect(new InetSocketAddress(host, port), 0);
    }

    @Override
    protected void connect(InetAddress address, int port) throws IOException {
        connect(new InetSocketAddress(address, port), 0);
    }

    @Override
    protected void connect(SocketAddress remote, int timeout) throws IOException {
        Upgrade upgrade = Upgrade.begin(remote, new DelegateSetup(delegate, bufferSizes));
        try {
            NioImpl.connect(delegate, remote, timeout);
        } catch (IOException | RuntimeException e) {
            upgrade.cancel();
            throw e;
        }
        syncFields();
        runOn(upgrade.complete(false), bufferSizes);
    }

    /**
     * The connection runs on {@code s} from now on (null: it stays on TCP); {@code setBy}: the options the app set on
     * this socket, or on the listener that accepted it, whose values it inherits.
     */
    private void runOn(SessionBackend s, BufferSizes setBy) throws SocketException {
        if (s != null) {
            s.setOobInline(!setBy.oobInlineKnownOff()
                    && Boolean.TRUE.equals(NioImpl.getOption(delegate, SocketOptions.SO_OOBINLINE)));
            sessionCloser = DroppedSockets.watch(this, s);
            session = s;
        }
    }

    private InetSocketAddress localAddress() throws SocketException {
        return DelegateSetup.localAddressOf(delegate);
    }

    @Override
    protected void bind(InetAddress host, int port) throws IOException {
        NioImpl.bind(delegate, host, port);
        syncFields();
    }

    @Override
    protected void listen(int backlog) throws IOException {
        NioImpl.listen(delegate, backlog);
        if (SoviaSocketImplFactory.isPlatformHooked()) {
            listeners = Listeners.open(localAddress());
        }
    }

    @Override
    protected void accept(SocketImpl target) throws IOException {
        if (!(target instanceof SoviaSocketImpl)) {
            // The JDK made the target itself (our factory failed for it): it can only carry TCP, so a
            // same-JVM client waiting to be claimed is reset rather than left hanging.
            int changes = bufferSizes.changes();
            NioImpl.accept(delegate, target);
            SessionBackend orphan = claim(new InetSocketAddress(NioImpl.address(target), NioImpl.port(target)),
                    new InetSocketAddress(NioImpl.localPort(target)), target, changes);
            if (orphan != null) {
                orphan.setOption(StandardSocketOptions.SO_LINGER, 0);
                orphan.close();
            }
            SoviaStats.connection(PathKind.TCP);
            return;
        }
        SoviaSocketImpl accepted = (SoviaSocketImpl) target;
        int changes = bufferSizes.changes();
        NioImpl.accept(delegate, accepted.delegate);
        accepted.syncFields();
        SessionBackend session = claim(new InetSocketAddress(accepted.address, accepted.port),
                accepted.localAddress(), accepted.delegate, changes);
        if (session != null) {
            accepted.runOn(session, bufferSizes);
            NioImpl.close(accepted.delegate);
        }
        SoviaStats.connection(session == null ? PathKind.TCP : session.path());
    }

    /**
     * Whether a client offered the connection just accepted into {@code impl} on an accelerated path; {@code
     * changes}: the listener's option count before the kernel's accept ({@link Listeners#claim}).
     */
    private SessionBackend claim(InetSocketAddress remote, InetSocketAddress local, SocketImpl impl, int changes)
            throws IOException {
        return listeners.claim(remote, local, NioImpl.setupOptions(impl, bufferSizes), bufferSizes, changes,
                option -> NioImpl.getOption(delegate, option), false);
    }

    /** SocketImpl's protected fields are read by Socket and by subclasses; keep them as the delegate's. */
    private void syncFields() {
        address = NioImpl.address(delegate);
        port = NioImpl.port(delegate);
        localport = NioImpl.localPort(delegate);
        fd = NioImpl.fd(delegate);
    }

    @Override
    protected InputStream getInputStream() throws IOException {
        SessionBackend s = session;
        if (s != null) {
            return SessionStreams.input(s, () -> timeout, () -> closed);
        }
        return new CountingInputStream(NioImpl.inputStream(delegate));
    }

    @Override
    protected OutputStream getOutputStream() throws IOException {
        SessionBackend s = session;
        if (s != null) {
            return SessionStreams.output(s);
        }
        return new CountingOutputStream(NioImpl.outputStream(delegate));
    }

    @Override
    protected int available() throws IOException {
        SessionBackend s = session;
        if (s == null) {
            return NioImpl.available(delegate);
        }
        ensureOpen();
        return s.available();
    }

    /** As NioSocketImpl on a closed socket; Socket checks isClosed itself except where it expects this. */
    private void ensureOpen() throws SocketException {
        if (closed) {
            throw new SocketException("Socket closed");
        }
    }

    @Override
    protected void close() throws IOException {
        closed = true;
        // a listener's transports first, as SoviaServerSocketChannel closes them: no client may find its shm socket
        // once another listener can take its port
        listeners.close();
        listeners = Listeners.NONE;
        if (session != null) {
            sessionCloser.clean();
        } else {
            NioImpl.close(delegate);
        }
    }

    @Override
    protected void shutdownInput() throws IOException {
        SessionBackend s = session;
        if (s != null) {
            s.shutdownInput();
        } else {
            NioImpl.shutdownInput(delegate);
        }
    }

    @Override
    protected void shutdownOutput() throws IOException {
        SessionBackend s = session;
        if (s != null) {
            s.shutdownOutput();
        } else {
            NioImpl.shutdownOutput(delegate);
        }
    }

    @Override
    protected boolean supportsUrgentData() {
        return true;
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        SessionBackend s = session;
        if (s != null) {
            s.sendUrgentData(data);
        } else {
            NioImpl.sendUrgentData(delegate, data);
        }
    }

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        if (optID == SocketOptions.SO_TIMEOUT) {
            timeout = value instanceof Integer ? (Integer) value : 0;
        }
        SessionBackend s = session;
        SocketOption<?> option = SocketOptionIds.option(optID);
        if (s == null) {
            NioImpl.setOption(delegate, optID, value);
            if (optID == SocketOptions.SO_OOBINLINE) {
                bufferSizes.onOobInlineSet();
            } else {
                bufferSizes.onSet(option, value);
            }
            return;
        }
        ensureOpen();
        if (optID == SocketOptions.SO_OOBINLINE) {
            s.setOobInline(Boolean.TRUE.equals(value));
            return;
        }
        if (option == null) {
            return;
        }
        try {
            setSessionOption(s, option, SocketOptionIds.toOption(optID, value));
        } catch (IOException | RuntimeException e) {
            throw new SocketException(e.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void setSessionOption(SessionBackend s, SocketOption<T> option, Object value) throws IOException {
        s.setOption(option, (T) value);
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        SessionBackend s = session;
        if (s == null) {
            return NioImpl.getOption(delegate, optID);
        }
        // Socket.getLocalAddress relies on this for the wildcard address after close
        ensureOpen();
        if (optID == SocketOptions.SO_TIMEOUT) {
            return timeout;
        }
        if (optID == SocketOptions.SO_BINDADDR) {
            return ((InetSocketAddress) s.localAddress()).getAddress();
        }
        if (optID == SocketOptions.SO_OOBINLINE) {
            return s.oobInline();
        }
        SocketOption<?> option = SocketOptionIds.option(optID);
        if (option == null) {
            throw new SocketException("Option " + optID + " not supported");
        }
        return SocketOptionIds.fromOption(optID, s.getOption(option));
    }

    @Override
    protected <T> void setOption(SocketOption<T> name, T value) throws IOException {
        SessionBackend s = session;
        if (s != null) {
            s.setOption(name, value);
        } else {
            NioImpl.setOption(delegate, name, value);
            bufferSizes.onSet(name, value);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <T> T getOption(SocketOption<T> name) throws IOException {
        SessionBackend s = session;
        return s != null ? s.getOption(name) : (T) NioImpl.getOption(delegate, name);
    }

    @Override
    protected Set<SocketOption<?>> supportedOptions() {
        SessionBackend s = session;
        return s != null ? s.supportedOptions() : NioImpl.supportedOptions(delegate);
    }

    @Override
    public String toString() {
        SessionBackend s = session;
        return "SoviaSocketImpl[" + (s != null ? s : delegate) + ']';
    }
}
