package io.sovia.agent.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A connected pair of java.net sockets over one transport, with the server socket that accepted them.
 *
 * @param server the listening socket, still open for more accepts
 * @param client the socket that connected
 * @param accepted the server side of the connection
 */
public record SocketPair(ServerSocket server, Socket client, Socket accepted) implements AutoCloseable {

    /** Connects a new client to a new server socket of {@code transport}. */
    public static SocketPair open(Transport transport) throws IOException {
        ServerSocket server = transport.openServerSocket();
        Socket client = new Socket();
        try {
            long before = transport.carried();
            client.connect(server.getLocalSocketAddress());
            SocketPair pair = new SocketPair(server, client, server.accept());
            transport.assertCarried(before, "java.net pair");
            return pair;
        } catch (IOException | RuntimeException e) {
            Io.closeAll(e, client, server);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        Io.closeAll(client, accepted, server);
    }
}
