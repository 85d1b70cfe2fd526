package io.sovia.spi.nio;

import io.sovia.spi.jdk.JdkNio;

import io.sovia.spi.backend.TcpServerBackend;
import io.sovia.spi.backend.TcpSocketBackend;
import io.sovia.spi.config.SoviaLog;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;

/**
 * Sovia's {@link SelectorProvider}, installed by the agent through the system property
 * {@code java.nio.channels.spi.SelectorProvider}.
 *
 * <p>TCP socket channels and selectors are Sovia's; datagram, pipe and UNIX-domain channels are the
 * JDK's own, passed through (Sovia's selector accepts them). The constructor does nothing, because the
 * JDK turns any exception from it into a ServiceConfigurationError that kills NIO for the whole JVM.
 * If creating a Sovia object ever fails, that failure is logged once and every later call returns the
 * JDK's own objects.
 */
public final class SoviaSelectorProvider extends SelectorProvider {
    /** Set once on the first internal failure; from then on this provider is the JDK's. */
    private volatile boolean degraded;

    /** Called by {@link SelectorProvider#provider()}; must stay trivial. */
    public SoviaSelectorProvider() {
    }

    /** The JDK's own provider, which carries every byte on the TCP path. */
    public static SelectorProvider jdk() {
        return JdkNio.provider();
    }

    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return jdk().openDatagramChannel();
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        return jdk().openDatagramChannel(family);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return jdk().openPipe();
    }

    @Override
    public AbstractSelector openSelector() throws IOException {
        if (!degraded) {
            try {
                return new SoviaSelector(this, jdk());
            } catch (RuntimeException | LinkageError e) {
                degrade(e);
            }
        }
        return jdk().openSelector();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return wrap(jdk().openServerSocketChannel());
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        ServerSocketChannel ch = jdk().openServerSocketChannel(family);
        return family == StandardProtocolFamily.UNIX ? ch : wrap(ch);
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return wrap(jdk().openSocketChannel());
    }

    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        SocketChannel ch = jdk().openSocketChannel(family);
        return family == StandardProtocolFamily.UNIX ? ch : wrap(ch);
    }

    @Override
    public Channel inheritedChannel() throws IOException {
        return jdk().inheritedChannel();
    }

    private SocketChannel wrap(SocketChannel ch) {
        if (!degraded) {
            try {
                return new SoviaSocketChannel(this, new TcpSocketBackend(ch));
            } catch (RuntimeException | LinkageError e) {
                degrade(e);
            }
        }
        return ch;
    }

    private ServerSocketChannel wrap(ServerSocketChannel ch) {
        if (!degraded) {
            try {
                return new SoviaServerSocketChannel(this, new TcpServerBackend(ch));
            } catch (RuntimeException | LinkageError e) {
                degrade(e);
            }
        }
        return ch;
    }

    private void degrade(Throwable cause) {
        if (!degraded) {
            degraded = true;
            SoviaLog.warn("NIO falls back to the plain JDK for new channels and selectors", cause);
        }
    }
}
