package io.sovia.spi.jvm;

import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.backend.SocketBackend;
import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Session;
import io.sovia.spi.link.JvmLinks;
import io.sovia.spi.route.Path;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.HashMap;
import java.util.Map;

/**
 * One connect on the jvm path, between {@link #offer} (before the loopback TCP connect) and
 * {@link #complete} (after it) or {@link #cancel} (it failed). See {@link JvmRendezvous}.
 */
public final class JvmConnect {
    private final InetSocketAddress local;
    private final JvmLinks links;
    private final Session session;

    private JvmConnect(InetSocketAddress local, JvmLinks links, Session session) {
        this.local = local;
        this.links = links;
        this.session = session;
    }

    /**
     * Creates the link and the client session (its SYN waits in the ring) and parks them for the
     * accept that will take the TCP connection from {@code local}, which must be bound already.
     */
    public static JvmConnect offer(InetSocketAddress local, InetSocketAddress remote) {
        JvmLinks links = JvmLinks.pair(SoviaConfig.jvmRingCapacity(), remote);
        Session session = new Session(links.client(), SoviaConfig.session(), System::nanoTime);
        session.connect();
        JvmRendezvous.offer(local, links);
        return new JvmConnect(local, links, session);
    }

    /**
     * The TCP connect succeeded: the connection now runs on the session.
     *
     * @param setup   what carried the setup; it stays open as long as the connection and closes with it
     * @param options the setup socket's option values, which the session keeps
     */
    public SessionBackend complete(InetSocketAddress remote, AutoCloseable setup, Map<SocketOption<?>, Object> options,
                                   boolean interruptible) {
        return new SessionBackend(session, Path.JVM, local, remote, setup, options, interruptible);
    }

    /** The TCP connect failed: nobody will claim the link. */
    public void cancel() {
        JvmRendezvous.withdraw(local, links);
        links.client().close();
    }

    /**
     * An accept took {@code tcp}: if a same-JVM client parked a link for it, returns the server end of
     * that connection and closes {@code tcp}; otherwise returns {@code tcp} unchanged.
     */
    public static SocketBackend claim(SocketBackend tcp, boolean interruptible) throws IOException {
        InetSocketAddress remote = (InetSocketAddress) tcp.remoteAddress();
        JvmLinks links = JvmRendezvous.claim(remote);
        if (links == null) {
            return tcp;
        }
        Map<SocketOption<?>, Object> options = options(tcp);
        InetSocketAddress local = (InetSocketAddress) tcp.localAddress();
        tcp.close();
        return accept(links, local, remote, options, interruptible);
    }

    /** The server end of a claimed connection: answers the client's SYN. */
    public static SessionBackend accept(JvmLinks links, InetSocketAddress local, InetSocketAddress remote,
                                        Map<SocketOption<?>, Object> options, boolean interruptible) {
        Session session = new Session(links.server(), SoviaConfig.session(), System::nanoTime);
        session.listen();
        session.poll();
        return new SessionBackend(session, Path.JVM, local, remote, null, options, interruptible);
    }

    /** The option values of the setup socket, which the session keeps. */
    public static Map<SocketOption<?>, Object> options(SocketBackend tcp) throws IOException {
        Map<SocketOption<?>, Object> values = new HashMap<>();
        for (SocketOption<?> option : tcp.supportedOptions()) {
            Object value = tcp.getOption(option);
            if (value != null) {
                values.put(option, value);
            }
        }
        return values;
    }
}
