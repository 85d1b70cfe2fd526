package io.sovia.spi.route;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.transport.Transport;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Picks the path for each outgoing connection: the fastest transport that reaches the destination and
 * that {@code sovia.paths} allows, otherwise the JDK's TCP with the reason.
 */
public final class Router {
    /** Fallback reason when no accelerated path reaches a destination. */
    public static final String NO_TRANSPORT = "no-transport";
    /** Fallback reason when {@code sovia.paths} excludes every path that reaches it. */
    public static final String DISABLED = "disabled";

    private static final Route TCP_NO_TRANSPORT = Route.tcp(NO_TRANSPORT);
    private static final Route TCP_DISABLED = Route.tcp(DISABLED);

    private Router() {
    }

    /** The route for a connect to {@code remote}. Never throws; anything unexpected means TCP. */
    public static Route route(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress) || ((InetSocketAddress) remote).isUnresolved()) {
            return TCP_NO_TRANSPORT;
        }
        InetSocketAddress to = (InetSocketAddress) remote;
        boolean disabled = false;
        for (Transport t : Transports.all()) {
            if (t.reaches(to)) {
                if (SoviaConfig.pathAllowed(t.path().key())) {
                    return new Route(t.path(), null, t);
                }
                disabled = true;
            }
        }
        return disabled ? TCP_DISABLED : TCP_NO_TRANSPORT;
    }
}
