package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Set;

/** Option and address checks shared by java.net sockets and the sockets adapting a channel. */
final class SocketOptionChecks {

    /** The standard options every TCP socket supports. */
    static final Set<SocketOption<?>> TCP_OPTIONS = Set.of(StandardSocketOptions.TCP_NODELAY,
            StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_LINGER, StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.IP_TOS);

    /** The standard options every TCP server socket supports. */
    static final Set<SocketOption<?>> SERVER_OPTIONS =
            Set.of(StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_REUSEADDR);

    private static final int TOS_LOW_DELAY = 0x10;

    private SocketOptionChecks() {
    }

    /** Sets each option through the java.net.Socket API and reads it back. */
    static void assertRoundTrips(Socket socket) throws IOException {
        socket.setTcpNoDelay(true);
        assertTrue(socket.getTcpNoDelay());
        socket.setTcpNoDelay(false);
        assertFalse(socket.getTcpNoDelay());
        socket.setKeepAlive(true);
        assertTrue(socket.getKeepAlive());
        socket.setKeepAlive(false);
        assertFalse(socket.getKeepAlive());
        socket.setReuseAddress(true);
        assertTrue(socket.getReuseAddress());
        socket.setReuseAddress(false);
        assertFalse(socket.getReuseAddress());
        socket.setSoLinger(true, 5);
        assertEquals(5, socket.getSoLinger());
        socket.setSoLinger(false, 0);
        assertEquals(-1, socket.getSoLinger());
        socket.setTrafficClass(TOS_LOW_DELAY);
        assertEquals(TOS_LOW_DELAY, socket.getTrafficClass());
        socket.setSoTimeout(1234);
        assertEquals(1234, socket.getSoTimeout());
        socket.setSoTimeout(0);
        assertEquals(0, socket.getSoTimeout());
        // The kernel rounds buffer sizes (Linux doubles them), so only their order is portable.
        socket.setReceiveBufferSize(8 * 1024);
        int smallReceive = socket.getReceiveBufferSize();
        socket.setReceiveBufferSize(256 * 1024);
        assertTrue(smallReceive > 0 && socket.getReceiveBufferSize() > smallReceive);
        socket.setSendBufferSize(8 * 1024);
        int smallSend = socket.getSendBufferSize();
        socket.setSendBufferSize(256 * 1024);
        assertTrue(smallSend > 0 && socket.getSendBufferSize() > smallSend);

        assertTrue(socket.supportedOptions().containsAll(TCP_OPTIONS), () -> "supports " + socket.supportedOptions());
        socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
        assertTrue(socket.getTcpNoDelay());
        assertEquals(Boolean.TRUE, socket.getOption(StandardSocketOptions.TCP_NODELAY));
        socket.setOption(StandardSocketOptions.SO_LINGER, 3);
        assertEquals(3, socket.getSoLinger());
        assertEquals(socket.getReceiveBufferSize(), socket.getOption(StandardSocketOptions.SO_RCVBUF));
        assertEquals(socket.getTrafficClass(), socket.getOption(StandardSocketOptions.IP_TOS));
    }

    /** The socket's address getters agree with the given channel-level addresses. */
    static void assertAddresses(Socket socket, InetSocketAddress local, InetSocketAddress remote) {
        assertTrue(socket.isBound() && socket.isConnected() && !socket.isClosed());
        assertEquals(local, socket.getLocalSocketAddress());
        assertEquals(local.getAddress(), socket.getLocalAddress());
        assertEquals(local.getPort(), socket.getLocalPort());
        assertEquals(remote, socket.getRemoteSocketAddress());
        assertEquals(remote.getAddress(), socket.getInetAddress());
        assertEquals(remote.getPort(), socket.getPort());
    }

    /** The getters of a socket that is neither bound nor connected. */
    static void assertUnconnected(Socket socket) {
        assertFalse(socket.isBound() || socket.isConnected() || socket.isClosed());
        assertEquals(0, socket.getPort());
        assertEquals(-1, socket.getLocalPort());
        assertNull(socket.getInetAddress());
        assertNull(socket.getRemoteSocketAddress());
        assertNull(socket.getLocalSocketAddress());
    }
}
