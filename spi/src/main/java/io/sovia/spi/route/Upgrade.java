package io.sovia.spi.route;

import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.backend.SetupSocket;
import io.sovia.spi.backend.Sessions;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.Session;
import io.sovia.spi.ops.LiveRegistry;
import io.sovia.spi.stats.SoviaStats;
import io.sovia.spi.transport.LocalAddresses;
import io.sovia.spi.transport.Transport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * One client connect, from its route to its session: the single upgrade of a TCP setup onto an
 * accelerated path, for {@code SocketChannel} and {@code java.net.Socket} alike. {@link #begin} routes
 * the connect and, on an accelerated path, binds the setup socket if the app did not and offers the
 * connection to the transport; the caller then makes its TCP connect; {@link #complete} moves the
 * connected socket onto the session (or keeps it on TCP) and counts it once; {@link #cancel} undoes an
 * offer whose TCP setup failed.
 *
 * <p>Threading: owned by the connecting thread, or by the channel's lock for a non-blocking connect.
 */
public final class Upgrade {
    private final Route route;
    private final SetupSocket setup;
    /** The accepted offer and the client's session on its link; null on TCP. */
    private final Transport.Offer offer;
    private final Session session;

    private Upgrade(Route route, SetupSocket setup, Transport.Offer offer, Session session) {
        this.route = route;
        this.setup = setup;
        this.offer = offer;
        this.session = session;
    }

    /**
     * Routes a connect to {@code remote} and, on an accelerated path, offers it. A path that cannot
     * take it, or fails (say, on an invalid {@code sovia.*} value), costs the connect its speed, never the
     * connect: it goes over TCP with a {@code <path>-unavailable} fallback.
     *
     * @throws IOException only when binding the setup socket failed, as the connect itself would
     */
    public static Upgrade begin(SocketAddress remote, SetupSocket setup) throws IOException {
        Route route = Router.route(remote);
        Transport transport = route.transport();
        if (transport == null) {
            return new Upgrade(route, setup, null, null);
        }
        InetSocketAddress to = (InetSocketAddress) remote;
        if (setup.localAddress() == null) {
            setup.bind(sourceFor(to.getAddress()));
        }
        InetSocketAddress local = (InetSocketAddress) setup.localAddress();
        String path = route.path().key();
        Transport.Offer offer = null;
        try {
            offer = transport.offer(local, to);
            return new Upgrade(route, setup, offer, Sessions.client(offer.link(), setup.bufferSizes()));
        } catch (Transport.Declined declined) {
            SoviaLog.debugOnce(path + declined.getMessage(), "the " + path + " path declined a connect to " + to
                    + " (" + declined.getMessage() + "); such connects use TCP");
            if (declined.statsKey() != null) {
                return new Upgrade(Route.tcp(declined.statsKey()), setup, null, null);
            }
        } catch (IOException | RuntimeException e) {
            if (offer != null) {
                offer.cancel();
            }
            SoviaLog.warnOnce(path + e.getClass().getName() + e.getMessage(),
                    "the " + path + " path failed; connects it cannot take use TCP", e);
        }
        return new Upgrade(Route.tcp(path + "-unavailable"), setup, null, null);
    }

    /**
     * Where the setup socket of a connect to {@code remote} binds when the app did not bind it, so the
     * transport can key its offer by it: the destination itself, which the kernel takes as source for
     * a local destination; for a wildcard destination, which the JDK turns into a loopback or the
     * host's address depending on the API and version, the wildcard, which matches by port; for another
     * host's address too, where the kernel picks the source by route (the eth path names it to its peer).
     */
    private static InetSocketAddress sourceFor(InetAddress remote) {
        return remote.isAnyLocalAddress() || !LocalAddresses.isLocal(remote)
                ? new InetSocketAddress(0) : new InetSocketAddress(remote, 0);
    }

    /** Whether the connect runs on an accelerated path once its TCP setup completes. */
    public boolean accelerated() {
        return offer != null;
    }

    /**
     * The TCP setup connected: counts the connection, and returns the session it now runs on, or null
     * when it stays on TCP.
     *
     * @param interruptible whether blocking calls end when the thread is interrupted (NIO channels)
     */
    public SessionBackend complete(boolean interruptible) throws IOException {
        SoviaStats.connection(route.path());
        if (route.reason() != null) {
            SoviaStats.fallback(route.reason());
            LiveRegistry.fellBack(route.reason(), setup.remoteAddress());
        }
        if (offer == null) {
            return null;
        }
        AutoCloseable transportLife;
        try {
            transportLife = offer.established();
        } catch (IOException | RuntimeException e) {
            offer.cancel();
            throw e;
        }
        return Sessions.backend(session, route.path(), (InetSocketAddress) setup.localAddress(),
                (InetSocketAddress) setup.remoteAddress(), () -> {
            closeQuietly(transportLife);
            setup.close();
        }, setup.options(), interruptible);
    }

    /** The TCP setup failed: the offer is withdrawn. Idempotent. */
    public void cancel() {
        if (offer != null) {
            offer.cancel();
        }
    }

    static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception ignored) {
            // the connection is gone either way; nothing else to release
        }
    }
}
