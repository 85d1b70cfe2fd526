package io.sovia.agent.it;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A connected pair of blocking socket channels over one transport, with the server that accepted them.
 *
 * @param server the listening channel, still open for more accepts
 * @param client the channel that connected
 * @param accepted the server side of the connection
 */
public record NioPair(ServerSocketChannel server, SocketChannel client, SocketChannel accepted)
        implements AutoCloseable {

    /** Connects a new client to a new server of {@code transport}. */
    public static NioPair open(Transport transport) throws IOException {
        ServerSocketChannel server = transport.openServerChannel();
        SocketChannel client = null;
        SocketChannel accepted = null;
        try {
            long before = transport.carried();
            client = SocketChannel.open(transport.connectAddress(server));
            accepted = server.accept();
            transport.assertCarried(before, "NIO pair");
            return new NioPair(server, client, accepted);
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
