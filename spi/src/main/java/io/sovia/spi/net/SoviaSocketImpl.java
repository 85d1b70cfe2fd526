package io.sovia.spi.net;

import io.sovia.spi.route.Path;
import io.sovia.spi.route.Route;
import io.sovia.spi.route.Router;
import io.sovia.spi.stats.SoviaStats;
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
import java.util.Set;

/**
 * The {@code SocketImpl} behind {@code java.net.Socket} and {@code ServerSocket} under the agent.
 *
 * <p>It routes each connect and counts the connection. On the TCP path it delegates every call to the
 * JDK's own {@code NioSocketImpl}, so java.net behaviour (reads not interruptible on platform threads,
 * {@code SO_TIMEOUT}, exception types and messages, SOCKS through the JDK's delegating impls) is exactly
 * the JDK's. It implements {@link PlatformSocketImpl} because {@code ServerSocket} only accepts into
 * platform impls.
 */
public final class SoviaSocketImpl extends SocketImpl implements PlatformSocketImpl {
    private final SocketImpl delegate;

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
        Route route = Router.route(remote);
        NioImpl.connect(delegate, remote, timeout);
        syncFields();
        SoviaStats.connection(route.path());
        if (route.reason() != null) {
            SoviaStats.fallback(route.reason());
        }
    }

    @Override
    protected void bind(InetAddress host, int port) throws IOException {
        NioImpl.bind(delegate, host, port);
        syncFields();
    }

    @Override
    protected void listen(int backlog) throws IOException {
        NioImpl.listen(delegate, backlog);
    }

    @Override
    protected void accept(SocketImpl target) throws IOException {
        if (target instanceof SoviaSocketImpl) {
            SoviaSocketImpl accepted = (SoviaSocketImpl) target;
            NioImpl.accept(delegate, accepted.delegate);
            accepted.syncFields();
        } else {
            // the target came from the JDK directly (our factory declined to make it): accept into it as is
            NioImpl.accept(delegate, target);
        }
        SoviaStats.connection(Path.TCP);
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
        return new CountingInputStream(NioImpl.inputStream(delegate), Path.TCP);
    }

    @Override
    protected OutputStream getOutputStream() throws IOException {
        return new CountingOutputStream(NioImpl.outputStream(delegate), Path.TCP);
    }

    @Override
    protected int available() throws IOException {
        return NioImpl.available(delegate);
    }

    @Override
    protected void close() throws IOException {
        NioImpl.close(delegate);
    }

    @Override
    protected void shutdownInput() throws IOException {
        NioImpl.shutdownInput(delegate);
    }

    @Override
    protected void shutdownOutput() throws IOException {
        NioImpl.shutdownOutput(delegate);
    }

    @Override
    protected boolean supportsUrgentData() {
        return true;
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        NioImpl.sendUrgentData(delegate, data);
    }

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        NioImpl.setOption(delegate, optID, value);
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        return NioImpl.getOption(delegate, optID);
    }

    @Override
    protected <T> void setOption(SocketOption<T> name, T value) throws IOException {
        NioImpl.setOption(delegate, name, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <T> T getOption(SocketOption<T> name) throws IOException {
        return (T) NioImpl.getOption(delegate, name);
    }

    @Override
    protected Set<SocketOption<?>> supportedOptions() {
        return NioImpl.supportedOptions(delegate);
    }

    @Override
    public String toString() {
        return "SoviaSocketImpl[" + delegate + ']';
    }
}
