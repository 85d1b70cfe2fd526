package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** Connection establishment: blocking and non-blocking connect, the connection states, refused connections. */
class ConnectIT extends SoviaTestBase {

    @TransportTest
    void blockingConnect(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel(); SocketChannel client = SocketChannel.open()) {
            assertFalse(client.isConnected());
            assertFalse(client.isConnectionPending());
            assertTrue(client.connect(transport.connectAddress(server)));
            assertTrue(client.isConnected());
            assertFalse(client.isConnectionPending());
            assertTrue(client.finishConnect(), "finishConnect on a connected channel just reports it");
            try (SocketChannel accepted = server.accept()) {
                assertEquals(transport.connectAddress(server), client.getRemoteAddress());
                // Through a relay the accepted channel's peer is the relay's outgoing socket, not the client.
                if (transport.acceptedSeesClient()) {
                    assertEquals(client.getLocalAddress(), accepted.getRemoteAddress());
                }
                Io.assertTalks(client, accepted);
            }
        }
    }

    @TransportTest
    void nonBlockingConnectWithSelector(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel();
                SocketChannel client = SocketChannel.open();
                Selector selector = Selector.open()) {
            client.configureBlocking(false);
            SelectionKey key = client.register(selector, SelectionKey.OP_CONNECT);
            long before = transport.carried();
            // The spec lets a non-blocking connect complete at once; otherwise it must go through OP_CONNECT.
            boolean pending = !client.connect(transport.connectAddress(server));
            if (pending) {
                assertTrue(client.isConnectionPending());
                assertFalse(client.isConnected());
                Io.awaitReady(selector, key, SelectionKey.OP_CONNECT);
                assertTrue(key.isConnectable());
                assertTrue(client.finishConnect());
            }
            String branch = pending ? "connect pending, then OP_CONNECT" : "connect completed at once";
            assertTrue(client.isConnected(), branch);
            assertFalse(client.isConnectionPending(), branch);
            if (transport == Transports.TCP) {
                // A loopback TCP connect does not complete within the call on Linux, so this is the branch to check.
                assertTrue(pending, "a non-blocking TCP connect completed at once; OP_CONNECT went unchecked");
            }
            try (SocketChannel accepted = server.accept()) {
                transport.assertCarried(before, "non-blocking connect (" + branch + ")");
                // Through a relay the accepted channel's peer is the relay's outgoing socket, not the client.
                if (transport.acceptedSeesClient()) {
                    assertEquals(client.getLocalAddress(), accepted.getRemoteAddress());
                }
                key.interestOps(SelectionKey.OP_READ);
                accepted.write(ByteBuffer.wrap(new byte[] {42}));
                assertEquals(42, Io.readOne(selector, key));
            }
        }
    }

    @TransportTest
    void blockingChannelConnectRefused(Transport transport) throws IOException {
        SocketAddress refused = transport.refusedAddress();
        try (SocketChannel client = SocketChannel.open()) {
            assertThrows(ConnectException.class, () -> client.connect(refused));
            assertFalse(client.isOpen(), "a failed connect closes the channel");
        }
        assertThrows(ConnectException.class, () -> SocketChannel.open(refused).close());
    }

    @TransportTest
    void nonBlockingChannelConnectRefused(Transport transport) throws IOException {
        SocketAddress refused = transport.refusedAddress();
        try (SocketChannel client = SocketChannel.open(); Selector selector = Selector.open()) {
            client.configureBlocking(false);
            SelectionKey key = client.register(selector, SelectionKey.OP_CONNECT);
            // The refusal may surface from connect itself or, the usual case, from finishConnect after OP_CONNECT.
            assertThrows(ConnectException.class, () -> {
                if (!client.connect(refused)) {
                    Io.awaitReady(selector, key, SelectionKey.OP_CONNECT);
                    client.finishConnect();
                }
            });
            assertFalse(client.isOpen(), "a failed connect closes the channel");
            assertFalse(client.isConnectionPending());
        }
    }

    @TransportTest
    void socketConnectRefused(Transport transport) throws IOException {
        InetSocketAddress refused = (InetSocketAddress) transport.refusedAddress();
        try (Socket socket = new Socket()) {
            assertThrows(ConnectException.class, () -> socket.connect(refused));
            assertFalse(socket.isConnected());
        }
        assertThrows(ConnectException.class, () -> new Socket(refused.getAddress(), refused.getPort()).close());
    }

    @TransportTest
    void socketConnect(Transport transport) throws IOException {
        try (var server = transport.openServerSocket(); Socket client = new Socket()) {
            assertFalse(client.isConnected());
            assertFalse(client.isBound());
            client.connect(transport.connectAddress(server));
            assertTrue(client.isConnected());
            assertTrue(client.isBound());
            try (Socket accepted = server.accept()) {
                assertEquals(transport.connectAddress(server), client.getRemoteSocketAddress());
                // Through a relay the accepted socket's peer is the relay's outgoing socket, not the client.
                if (transport.acceptedSeesClient()) {
                    assertEquals(client.getLocalSocketAddress(), accepted.getRemoteSocketAddress());
                }
                Io.assertTalks(client, accepted);
            }
        }
    }
}
