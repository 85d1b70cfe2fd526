package io.sovia.agent.it;

import io.sovia.spi.route.Path;
import io.sovia.spi.stats.SoviaStats;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Locale;

/**
 * Where a scenario's servers listen. The scenarios take one of these as their parameter, so each runs once per
 * transport listed in {@link Transports#all()}.
 */
public interface Transport {

    /** Short name shown in test reports, e.g. {@code tcp}; also the path its connections must take. */
    String name();

    /**
     * Counts a pair connected over this transport: Sovia must have carried both ends on this transport's
     * path. Skipped on the plain JDK ({@code -Dsovia.it.plain=true}), which has no paths.
     */
    default void assertCarried(long before, String what) {
        if (!Boolean.getBoolean("sovia.it.plain")) {
            long after = SoviaStats.connections(Path.valueOf(name().toUpperCase(Locale.ROOT)));
            if (after != before + 2) {
                throw new AssertionError(what + " over " + name() + ": expected both ends on the " + name()
                        + " path, counted " + (after - before));
            }
        }
    }

    /** Connections Sovia counted so far on this transport's path (0 on the plain JDK). */
    default long carried() {
        return Boolean.getBoolean("sovia.it.plain") ? 0
                : SoviaStats.connections(Path.valueOf(name().toUpperCase(Locale.ROOT)));
    }

    /** A new bound, blocking server channel; clients connect to its {@code getLocalAddress()}. */
    ServerSocketChannel openServerChannel() throws IOException;

    /** A new bound java.net server socket; clients connect to its {@code getLocalSocketAddress()}. */
    ServerSocket openServerSocket() throws IOException;

    /** An address of this transport where nothing listens, so a connect to it is refused. */
    default SocketAddress refusedAddress() throws IOException {
        // The port is free again once the server is closed; another process grabbing it in between is negligible.
        try (ServerSocketChannel server = openServerChannel()) {
            return server.getLocalAddress();
        }
    }

    /**
     * A transport picked by the address servers bind to, with an ephemeral port.
     *
     * @param name report name
     * @param bindAddress host and port 0 to bind every server to
     */
    record Bound(String name, InetSocketAddress bindAddress) implements Transport {

        /**
         * Limits the paths Sovia may choose to this transport's (the property is read at each connect,
         * and scenarios run one at a time, each opening its server first).
         */
        private void selectPath() {
            System.setProperty("sovia.paths", name.equals("tcp") ? "tcp" : name + ",tcp");
        }

        @Override
        public ServerSocketChannel openServerChannel() throws IOException {
            selectPath();
            ServerSocketChannel server = ServerSocketChannel.open();
            try {
                return server.bind(bindAddress);
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        }

        @Override
        public ServerSocket openServerSocket() throws IOException {
            selectPath();
            ServerSocket server = new ServerSocket();
            try {
                server.bind(bindAddress);
                return server;
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
