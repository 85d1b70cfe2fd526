package io.sovia.agent.it;

import static io.sovia.agent.it.SocketOptionChecks.SERVER_OPTIONS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Options and addresses of java.net sockets and server sockets. */
class SocketOptionsIT extends SoviaTestBase {

    @TransportTest
    void socketOptionsRoundTrip(Transport transport) throws IOException {
        try (SocketPair pair = SocketPair.open(transport)) {
            SocketOptionChecks.assertRoundTrips(pair.client());
            SocketOptionChecks.assertRoundTrips(pair.accepted());
        }
    }

    /**
     * Options nobody set read as the JDK's do, on both ends: the client's are read from its setup socket when first
     * asked, the accepted end's before its setup socket closes.
     */
    @TransportTest
    void optionsNobodySetReadAsTheKernelHasThem(Transport transport) throws IOException {
        try (SocketPair pair = SocketPair.open(transport)) {
            for (Socket socket : new Socket[] {pair.client(), pair.accepted()}) {
                assertEquals(-1, socket.getSoLinger());
                assertFalse(socket.getTcpNoDelay());
                assertFalse(socket.getKeepAlive());
                assertTrue(socket.getReceiveBufferSize() > 0);
                assertTrue(socket.getSendBufferSize() > 0);
                assertEquals(0, socket.getTrafficClass());
                Io.assertTalks(pair.client(), pair.accepted());
            }
        }
    }

    /**
     * Including the options whose defaults a session knows without asking the setup socket (TCP_NODELAY, SO_LINGER,
     * SO_OOBINLINE): once the app set one, they are read from the socket.
     */
    @TransportTest
    void optionsSetBeforeConnectSurviveIt(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket(); Socket client = new Socket()) {
            client.setTcpNoDelay(true);
            client.setKeepAlive(true);
            client.setSoTimeout(2345);
            client.setSoLinger(true, 7);
            client.setOOBInline(true);
            client.connect(transport.connectAddress(server));
            try (Socket accepted = server.accept()) {
                assertTrue(client.getTcpNoDelay());
                assertTrue(client.getKeepAlive());
                assertEquals(2345, client.getSoTimeout());
                assertEquals(7, client.getSoLinger());
                assertTrue(client.getOOBInline());
                assertEquals(-1, accepted.getSoLinger());
                assertFalse(accepted.getOOBInline());
                Io.assertTalks(client, accepted);
            }
        }
    }

    /**
     * Accepted sockets inherit their listener's options: one snapshot serves consecutive accepts on the session
     * paths, and one the app set on the listener in between shows in the next accept, as on the kernel's sockets.
     */
    @TransportTest
    void acceptedSocketsReportTheOptionsTheirListenerHadAtTheirAccept(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket()) {
            server.setReceiveBufferSize(64 * 1024);
            int first = acceptedReceiveBuffer(transport, server);
            assertEquals(first, acceptedReceiveBuffer(transport, server));
            server.setReceiveBufferSize(256 * 1024);
            int changed = acceptedReceiveBuffer(transport, server);
            assertTrue(changed > first, () -> "the listener's new SO_RCVBUF did not reach the next accept: " + first
                    + " then " + changed);
            assertEquals(changed, acceptedReceiveBuffer(transport, server));
        }
    }

    /**
     * The kernel gives a connection its listener's options when its handshake completes: one waiting in the backlog
     * while the app changes SO_RCVBUF on the listener keeps the older value, and must not stand for the connections
     * made after the change.
     */
    @TransportTest
    void aConnectionFromTheBacklogDoesNotHideTheListenersNewOptions(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket()) {
            server.setReceiveBufferSize(64 * 1024);
            int first = acceptedReceiveBuffer(transport, server);
            try (Socket early = new Socket()) {
                early.connect(transport.connectAddress(server));
                server.setReceiveBufferSize(256 * 1024);
                try (Socket accepted = server.accept()) {
                    Io.assertTalks(early, accepted);
                }
            }
            int later = acceptedReceiveBuffer(transport, server);
            assertTrue(later > first, () -> "a connection made after the listener's new SO_RCVBUF reports " + later
                    + ", as the one before it: " + first);
            assertEquals(later, acceptedReceiveBuffer(transport, server));
        }
    }

    private static int acceptedReceiveBuffer(Transport transport, ServerSocket server) throws IOException {
        try (Socket client = new Socket()) {
            client.connect(transport.connectAddress(server));
            try (Socket accepted = server.accept()) {
                Io.assertTalks(client, accepted);
                return accepted.getReceiveBufferSize();
            }
        }
    }

    @TransportTest
    void serverSocketOptions(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket()) {
            assertTrue(server.supportedOptions().containsAll(SERVER_OPTIONS),
                    () -> "supports " + server.supportedOptions());
            server.setReuseAddress(true);
            assertTrue(server.getReuseAddress());
            assertEquals(true, server.getOption(StandardSocketOptions.SO_REUSEADDR));
            server.setOption(StandardSocketOptions.SO_REUSEADDR, false);
            assertFalse(server.getReuseAddress());
            server.setReceiveBufferSize(64 * 1024);
            assertEquals(server.getReceiveBufferSize(), server.getOption(StandardSocketOptions.SO_RCVBUF));
            server.setSoTimeout(4321);
            assertEquals(4321, server.getSoTimeout());
        }
    }

    @TransportTest
    void socketsAgreeOnAddresses(Transport transport) throws IOException {
        try (SocketPair pair = SocketPair.open(transport)) {
            ServerSocket server = pair.server();
            InetSocketAddress serverAddress = (InetSocketAddress) server.getLocalSocketAddress();
            assertEquals(serverAddress.getPort(), server.getLocalPort());
            assertEquals(serverAddress.getAddress(), server.getInetAddress());
            assertTrue(server.isBound());
            assertNull(server.getChannel(), "a java.net server socket has no channel");
            assertNull(pair.client().getChannel(), "a java.net socket has no channel");

            InetSocketAddress clientLocal = (InetSocketAddress) pair.client().getLocalSocketAddress();
            SocketOptionChecks.assertAddresses(pair.client(), clientLocal,
                    (InetSocketAddress) transport.connectAddress(server));
            // Through a relay the accepted socket's peer is the relay's outgoing socket, not the client: then only
            // the accepted socket's own getters can be checked against each other.
            InetSocketAddress acceptedPeer = transport.acceptedSeesClient() ? clientLocal
                    : (InetSocketAddress) pair.accepted().getRemoteSocketAddress();
            SocketOptionChecks.assertAddresses(pair.accepted(), serverAddress, acceptedPeer);
        }
    }

    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void unconnectedAndClosedSockets() throws IOException {
        Socket socket = new Socket();
        SocketOptionChecks.assertUnconnected(socket);
        socket.close();
        assertTrue(socket.isClosed());
        ServerSocket server = new ServerSocket();
        assertFalse(server.isBound());
        assertEquals(-1, server.getLocalPort());
        assertNull(server.getLocalSocketAddress());
        server.close();
        assertTrue(server.isClosed());
    }
}
