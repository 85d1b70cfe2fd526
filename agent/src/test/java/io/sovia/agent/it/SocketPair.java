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
        Socket accepted = null;
        try {
            long before = transport.carried();
            client.connect(transport.connectAddress(server));
            accepted = server.accept();
            transport.assertCarried(before, "java.net pair");
            return new SocketPair(server, client, accepted);
        } catch (IOException | RuntimeException | Error e) {
            // a failed path check too: nothing of a pair the test never gets may stay open
            Io.closeAll(e, accepted, client, server);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        Io.closeAll(client, accepted, server);
    }
}
