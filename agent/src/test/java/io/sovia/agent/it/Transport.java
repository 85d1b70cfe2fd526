package io.sovia.agent.it;

import io.sovia.spi.transport.PathKind;
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

    /** Short name shown in test reports, e.g. {@code tcp}. */
    String name();

    /** The path Sovia must carry this transport's connections on; by default the one the transport is named after. */
    default PathKind path() {
        return PathKind.valueOf(name().toUpperCase(Locale.ROOT));
    }

    /**
     * Counts a pair connected over this transport: Sovia must have carried both ends this JVM holds, the client and
     * the accepted socket, on this transport's path. Skipped on the plain JDK ({@code -Dsovia.it.plain=true}), which
     * has no paths.
     */
    default void assertCarried(long before, String what) {
        if (!Boolean.getBoolean("sovia.it.plain")) {
            long after = SoviaStats.connections(path());
            if (after != before + 2) {
                throw new AssertionError(what + " over " + name() + ": expected both ends on the " + path().key()
                        + " path, counted " + (after - before));
            }
        }
    }

    /** Connections Sovia counted so far on this transport's path (0 on the plain JDK). */
    default long carried() {
        return Boolean.getBoolean("sovia.it.plain") ? 0 : SoviaStats.connections(path());
    }

    /** A new bound, blocking server channel; clients connect to its {@link #connectAddress(ServerSocketChannel)}. */
    ServerSocketChannel openServerChannel() throws IOException;

    /**
     * A new blocking server channel bound to {@code at} (a wildcard or IPv6 address, port 0); transports whose
     * clients cannot reach such a listener abort the test.
     */
    ServerSocketChannel openServerChannel(InetSocketAddress at) throws IOException;

    /** A new bound java.net server socket; clients connect to its {@link #connectAddress(ServerSocket)}. */
    ServerSocket openServerSocket() throws IOException;

    /** Where clients reach a server this transport opened; by default where it listens. */
    default SocketAddress connectAddress(ServerSocketChannel server) throws IOException {
        return server.getLocalAddress();
    }

    /** Where clients reach a server socket this transport opened; by default where it listens. */
    default SocketAddress connectAddress(ServerSocket server) {
        return server.getLocalSocketAddress();
    }

    /**
     * Whether an accepted connection's remote address is the client's local address. Not so when something
     * relays the connection: the accepted end's peer is then the relay's outgoing socket.
     */
    default boolean acceptedSeesClient() {
        return true;
    }

    /**
     * Waits until the peers of the connections closed so far, where they are outside this JVM, have closed too:
     * Sovia releases a closed connection's descriptors only once its peer has closed as well. By default there
     * are no such peers.
     */
    default void awaitPeersClosed() throws IOException {
    }

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
            return openServerChannel(bindAddress);
        }

        @Override
        public ServerSocketChannel openServerChannel(InetSocketAddress at) throws IOException {
            selectPath();
            ServerSocketChannel server = ServerSocketChannel.open();
            try {
                return server.bind(at);
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
