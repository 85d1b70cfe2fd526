package io.sovia.agent.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;

/**
 * Where a scenario's servers listen. The scenarios take one of these as their parameter, so each runs once per
 * transport listed in {@link Transports#all()}.
 */
public interface Transport {

    /** Short name shown in test reports, e.g. {@code tcp}. */
    String name();

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

        @Override
        public ServerSocketChannel openServerChannel() throws IOException {
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
