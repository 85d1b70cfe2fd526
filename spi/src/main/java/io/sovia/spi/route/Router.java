package io.sovia.spi.route;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.jvm.JvmRendezvous;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Picks the path for each outgoing connection (DESIGN section 1): jvm when a Sovia listener in this JVM
 * will accept it, otherwise the JDK's TCP with the reason. shm and eth come in later stages.
 */
public final class Router {
    /** Fallback reason when no accelerated path reaches a destination. */
    public static final String NO_TRANSPORT = "no-transport";
    /** Fallback reason when {@code sovia.paths} excludes every accelerated path. */
    public static final String DISABLED = "disabled";

    private static final Route JVM = new Route(Path.JVM, null);
    private static final Route TCP_NO_TRANSPORT = new Route(Path.TCP, NO_TRANSPORT);
    private static final Route TCP_DISABLED = new Route(Path.TCP, DISABLED);

    private Router() {
    }

    /** The route for a connect to {@code remote}. Never throws; anything unexpected means TCP. */
    public static Route route(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress)) {
            return TCP_NO_TRANSPORT;
        }
        if (!SoviaConfig.pathAllowed("jvm")) {
            return TCP_DISABLED;
        }
        return JvmRendezvous.hasListener((InetSocketAddress) remote) ? JVM : TCP_NO_TRANSPORT;
    }
}
