package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** The results and exceptions applications rely on for channels in each state. */
class ChannelStateIT extends SoviaTestBase {

    @TransportTest
    void nonBlockingReadWithoutDataReturnsZero(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            pair.client().configureBlocking(false);
            assertEquals(0, pair.client().read(ByteBuffer.allocate(10)));
            assertEquals(0, pair.client().read(new ByteBuffer[] {ByteBuffer.allocateDirect(10)}));
        }
    }

    @TransportTest
    void writeAfterShutdownOutputThrows(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            pair.client().shutdownOutput();
            assertThrows(ClosedChannelException.class, () -> pair.client().write(ByteBuffer.allocate(1)));
            pair.client().configureBlocking(false);
            assertThrows(ClosedChannelException.class, () -> pair.client().write(ByteBuffer.allocate(1)));
            assertTrue(pair.client().isOpen(), "a half-closed channel is still open");
        }
    }

    @TransportTest
    void closedChannelOperationsThrow(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            SocketChannel channel = pair.client();
            channel.close();
            channel.close();
            assertFalse(channel.isOpen());
            ByteBuffer buffer = ByteBuffer.allocate(1);
            assertThrows(ClosedChannelException.class, () -> channel.read(buffer));
            assertThrows(ClosedChannelException.class, () -> channel.write(buffer));
            assertThrows(ClosedChannelException.class, () -> channel.read(new ByteBuffer[] {buffer}));
            assertThrows(ClosedChannelException.class, () -> channel.write(new ByteBuffer[] {buffer}));
            assertThrows(ClosedChannelException.class, () -> channel.connect(transport.connectAddress(pair.server())));
            assertThrows(ClosedChannelException.class, channel::finishConnect);
            assertThrows(ClosedChannelException.class, channel::shutdownInput);
            assertThrows(ClosedChannelException.class, channel::shutdownOutput);
            assertThrows(ClosedChannelException.class, channel::getRemoteAddress);
            assertThrows(ClosedChannelException.class, channel::getLocalAddress);
            assertThrows(ClosedChannelException.class, () -> channel.getOption(StandardSocketOptions.TCP_NODELAY));
            assertThrows(ClosedChannelException.class,
                    () -> channel.setOption(StandardSocketOptions.TCP_NODELAY, true));
            assertThrows(ClosedChannelException.class, () -> channel.configureBlocking(false));
            assertThrows(ClosedChannelException.class, () -> channel.register(selector, SelectionKey.OP_READ));

            ServerSocketChannel server = pair.server();
            server.close();
            assertThrows(ClosedChannelException.class, server::accept);
            assertThrows(ClosedChannelException.class, server::getLocalAddress);
            assertThrows(ClosedChannelException.class, () -> server.bind(null));
        }
    }

    @TransportTest
    void registerNeedsNonBlockingMode(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            assertThrows(IllegalBlockingModeException.class,
                    () -> pair.client().register(selector, SelectionKey.OP_READ));
            assertThrows(IllegalBlockingModeException.class,
                    () -> pair.server().register(selector, SelectionKey.OP_ACCEPT));
            pair.client().configureBlocking(false);
            pair.client().register(selector, SelectionKey.OP_READ);
            assertThrows(IllegalBlockingModeException.class, () -> pair.client().configureBlocking(true),
                    "a registered channel cannot go back to blocking mode");
            assertThrows(IllegalArgumentException.class, () -> pair.client().register(selector, SelectionKey.OP_ACCEPT),
                    "a socket channel cannot accept");
        }
    }

    @TransportTest
    void nonBlockingAcceptWithoutPendingReturnsNull(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel()) {
            server.configureBlocking(false);
            assertNull(server.accept());
            try (SocketChannel client = SocketChannel.open(transport.connectAddress(server))) {
                try (SocketChannel accepted = acceptWithin(server)) {
                    assertTrue(accepted.isBlocking(), "accepted channels start in blocking mode");
                    Io.assertTalks(client, accepted);
                }
            }
            assertNull(server.accept());
        }
    }

    @TransportTest
    void adaptorStreamsOfNonBlockingChannelRefuseIo(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            Socket adaptor = pair.client().socket();
            var in = adaptor.getInputStream();
            var out = adaptor.getOutputStream();
            pair.client().configureBlocking(false);
            assertThrows(IllegalBlockingModeException.class, in::read);
            assertThrows(IllegalBlockingModeException.class, () -> out.write(1));
            assertTrue(pair.client().isOpen());
        }
    }

    @TransportTest
    void connectionStateExceptions(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel(); SocketChannel channel = SocketChannel.open()) {
            SocketAddress address = transport.connectAddress(server);
            assertThrows(NotYetConnectedException.class, () -> channel.read(ByteBuffer.allocate(1)));
            assertThrows(NotYetConnectedException.class, () -> channel.write(ByteBuffer.allocate(1)));
            assertThrows(NoConnectionPendingException.class, channel::finishConnect);
            assertNull(channel.getRemoteAddress());
            channel.configureBlocking(false);
            if (!channel.connect(address)) {
                assertThrows(ConnectionPendingException.class, () -> channel.connect(address));
            }
            channel.configureBlocking(true);
            assertTrue(channel.finishConnect(), "a blocking finishConnect waits for the connection");
            assertThrows(AlreadyConnectedException.class, () -> channel.connect(address));
            assertThrows(AlreadyBoundException.class, () -> channel.bind(null));
            assertThrows(AlreadyBoundException.class, () -> server.bind(null));
        }
        try (ServerSocketChannel unbound = ServerSocketChannel.open()) {
            assertThrows(NotYetBoundException.class, unbound::accept);
            assertNull(unbound.getLocalAddress());
        }
    }

    /** Accepts once OP_ACCEPT fires, as a connection may reach a non-blocking server a moment after connect. */
    private static SocketChannel acceptWithin(ServerSocketChannel server) throws IOException {
        try (Selector selector = Selector.open()) {
            SelectionKey key = server.register(selector, SelectionKey.OP_ACCEPT);
            Io.awaitReady(selector, key, SelectionKey.OP_ACCEPT);
            SocketChannel accepted = server.accept();
            assertTrue(accepted != null && accepted.getRemoteAddress() instanceof InetSocketAddress);
            return accepted;
        }
    }
}
