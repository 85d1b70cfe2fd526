package io.sovia.spi.jvm;

import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Session;
import io.sovia.spi.link.JvmLinks;
import io.sovia.spi.route.Path;
import io.sovia.spi.route.Transport;

import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.Map;

/** One connect on the jvm path, between its offer and the end of its TCP setup; see {@link JvmRendezvous}. */
final class JvmConnect implements Transport.PendingConnect {
    private final InetSocketAddress local;
    private final JvmLinks links;
    private final Session session;

    private JvmConnect(InetSocketAddress local, JvmLinks links, Session session) {
        this.local = local;
        this.links = links;
        this.session = session;
    }

    /** Creates the link and the client session (its SYN waits in the ring) and parks them for the accept. */
    static JvmConnect offer(InetSocketAddress local, InetSocketAddress remote) {
        JvmLinks links = JvmLinks.pair(SoviaConfig.jvmRingCapacity(), remote);
        Session session = new Session(links.client(), SoviaConfig.session(), System::nanoTime);
        session.connect();
        JvmRendezvous.offer(local, links);
        return new JvmConnect(local, links, session);
    }

    @Override
    public SessionBackend complete(InetSocketAddress remote, AutoCloseable setup, Map<SocketOption<?>, Object> options,
                                   boolean interruptible) {
        return new SessionBackend(session, Path.JVM, local, remote, setup, options, interruptible);
    }

    @Override
    public void cancel() {
        JvmRendezvous.withdraw(local, links);
        links.client().close();
    }

    /** The server end of a claimed connection: answers the client's SYN. */
    static SessionBackend accept(JvmLinks links, InetSocketAddress local, InetSocketAddress remote,
                                 Map<SocketOption<?>, Object> options, boolean interruptible) {
        Session session = new Session(links.server(), SoviaConfig.session(), System::nanoTime);
        session.listen();
        session.poll();
        return new SessionBackend(session, Path.JVM, local, remote, null, options, interruptible);
    }
}
