package io.sovia.agent.it;

import static io.sovia.agent.it.SocketOptionChecks.SERVER_OPTIONS;
import static io.sovia.agent.it.SocketOptionChecks.TCP_OPTIONS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Options and addresses of socket channels, seen through the channel and through its socket adaptor. */
class ChannelOptionsIT extends SoviaTestBase {

    @TransportTest
    void adaptorOptionsRoundTrip(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            SocketOptionChecks.assertRoundTrips(pair.client().socket());
            SocketOptionChecks.assertRoundTrips(pair.accepted().socket());
        }
    }

    @TransportTest
    void channelOptionsRoundTripAndMatchTheAdaptor(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel channel = pair.client();
            Socket adaptor = channel.socket();
            assertTrue(channel.supportedOptions().containsAll(TCP_OPTIONS),
                    () -> "supports " + channel.supportedOptions());

            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            assertEquals(true, channel.getOption(StandardSocketOptions.TCP_NODELAY));
            assertTrue(adaptor.getTcpNoDelay());
            adaptor.setKeepAlive(true);
            assertEquals(true, channel.getOption(StandardSocketOptions.SO_KEEPALIVE));
            channel.setOption(StandardSocketOptions.SO_LINGER, 7);
            assertEquals(7, channel.getOption(StandardSocketOptions.SO_LINGER));
            assertEquals(7, adaptor.getSoLinger());
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            assertTrue(adaptor.getReuseAddress());
            channel.setOption(StandardSocketOptions.IP_TOS, 0x10);
            assertEquals(0x10, channel.getOption(StandardSocketOptions.IP_TOS));
            assertEquals(0x10, adaptor.getTrafficClass());
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 64 * 1024);
            assertEquals(adaptor.getReceiveBufferSize(), channel.getOption(StandardSocketOptions.SO_RCVBUF));
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
            assertEquals(adaptor.getSendBufferSize(), channel.getOption(StandardSocketOptions.SO_SNDBUF));

            assertThrows(IllegalArgumentException.class, () -> channel.setOption(StandardSocketOptions.SO_RCVBUF, -1));
            assertThrows(UnsupportedOperationException.class,
                    () -> channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 1));
            assertThrows(UnsupportedOperationException.class,
                    () -> channel.getOption(StandardSocketOptions.IP_MULTICAST_TTL));
        }
    }

    @TransportTest
    void serverChannelOptions(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel()) {
            ServerSocket adaptor = server.socket();
            assertTrue(server.supportedOptions().containsAll(SERVER_OPTIONS),
                    () -> "supports " + server.supportedOptions());
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            assertTrue(adaptor.getReuseAddress());
            adaptor.setReuseAddress(false);
            assertEquals(false, server.getOption(StandardSocketOptions.SO_REUSEADDR));
            adaptor.setReceiveBufferSize(64 * 1024);
            assertEquals(adaptor.getReceiveBufferSize(), server.getOption(StandardSocketOptions.SO_RCVBUF));
            adaptor.setSoTimeout(4321);
            assertEquals(4321, adaptor.getSoTimeout());
        }
    }

    @TransportTest
    void adaptorsBelongToTheirChannelsAndAgreeOnAddresses(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            SocketChannel accepted = pair.accepted();
            ServerSocketChannel server = pair.server();
            assertSame(client, client.socket().getChannel());
            assertSame(accepted, accepted.socket().getChannel());
            assertSame(server, server.socket().getChannel());
            assertSame(client.socket(), client.socket(), "one adaptor per channel");

            InetSocketAddress serverAddress = (InetSocketAddress) server.getLocalAddress();
            assertEquals(serverAddress, server.socket().getLocalSocketAddress());
            assertEquals(serverAddress.getPort(), server.socket().getLocalPort());
            assertEquals(serverAddress.getAddress(), server.socket().getInetAddress());
            assertTrue(server.socket().isBound());

            InetSocketAddress clientLocal = (InetSocketAddress) client.getLocalAddress();
            InetSocketAddress clientRemote = (InetSocketAddress) transport.connectAddress(server);
            assertEquals(clientRemote, client.getRemoteAddress());
            // Through a relay the accepted channel's peer is the relay's outgoing socket, not the client.
            if (transport.acceptedSeesClient()) {
                assertEquals(clientLocal, accepted.getRemoteAddress());
            }
            assertEquals(serverAddress, accepted.getLocalAddress());
            SocketOptionChecks.assertAddresses(client.socket(), clientLocal, clientRemote);
            SocketOptionChecks.assertAddresses(accepted.socket(), serverAddress,
                    (InetSocketAddress) accepted.getRemoteAddress());
        }
    }

    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void adaptorsOfUnconnectedAndClosedChannels() throws IOException {
        SocketChannel channel = SocketChannel.open();
        SocketOptionChecks.assertUnconnected(channel.socket());
        channel.close();
        assertTrue(channel.socket().isClosed());
        ServerSocketChannel server = ServerSocketChannel.open();
        assertFalse(server.socket().isBound());
        assertEquals(-1, server.socket().getLocalPort());
        assertNull(server.socket().getLocalSocketAddress());
        server.close();
        assertTrue(server.socket().isClosed());
    }
}
