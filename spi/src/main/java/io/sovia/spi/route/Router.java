package io.sovia.spi.route;

import java.net.SocketAddress;

/**
 * Picks the path for each outgoing connection (DESIGN section 1).
 *
 * <p>Transports are added in later stages (jvm, then shm, then eth, in that order); until one can
 * carry a destination, every connect goes to the JDK's TCP with the reason
 * {@value #NO_TRANSPORT}.
 */
public final class Router {
    /** Fallback reason when no accelerated transport is available for a destination. */
    public static final String NO_TRANSPORT = "no-transport";

    private static final Route TCP_NO_TRANSPORT = new Route(Path.TCP, NO_TRANSPORT);

    private Router() {
    }

    /** The route for a connect to {@code remote}. Never throws; an internal failure means TCP. */
    public static Route route(SocketAddress remote) {
        return TCP_NO_TRANSPORT;
    }
}
