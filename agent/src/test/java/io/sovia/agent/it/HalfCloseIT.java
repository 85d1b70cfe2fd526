package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** Half-close: each direction of a connection ends on its own. */
class HalfCloseIT extends SoviaTestBase {

    @TransportTest
    void channelShutdownOutputGivesPeerEofWhileReverseStillFlows(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            SocketChannel accepted = pair.accepted();
            byte[] last = Io.pattern(0, 300);
            Io.writeFully(client, ByteBuffer.wrap(last));
            client.shutdownOutput();
            assertTrue(client.socket().isOutputShutdown());
            assertFalse(client.socket().isInputShutdown());

            assertArrayEquals(last, Io.readFully(accepted, last.length), "data sent before the shutdown arrives");
            assertEquals(-1, accepted.read(ByteBuffer.allocate(10)));
            assertEquals(-1, accepted.read(ByteBuffer.allocate(10)), "EOF is sticky");

            byte[] reply = Io.pattern(7, 500);
            Io.writeFully(accepted, ByteBuffer.wrap(reply));
            assertArrayEquals(reply, Io.readFully(client, reply.length));
            assertTrue(client.isOpen() && client.isConnected());
        }
    }

    @TransportTest
    void channelShutdownInputReadsEof(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            client.shutdownInput();
            assertTrue(client.socket().isInputShutdown());
            assertFalse(client.socket().isOutputShutdown());
            // Blocking channel with nothing sent: the read must return at once instead of waiting for data.
            assertEquals(-1, client.read(ByteBuffer.allocate(10)));
            Io.writeFully(client, ByteBuffer.wrap(new byte[] {5}));
            assertArrayEquals(new byte[] {5}, Io.readFully(pair.accepted(), 1), "output still works");
        }
    }

    @TransportTest
    void socketShutdownOutputGivesPeerEofWhileReverseStillFlows(Transport transport) throws IOException {
        try (SocketPair pair = SocketPair.open(transport)) {
            Socket client = pair.client();
            Socket accepted = pair.accepted();
            byte[] last = Io.pattern(0, 300);
            client.getOutputStream().write(last);
            client.shutdownOutput();
            assertTrue(client.isOutputShutdown());
            assertFalse(client.isInputShutdown());

            assertArrayEquals(last, Io.readFully(accepted.getInputStream(), last.length));
            assertEquals(-1, accepted.getInputStream().read());
            assertEquals(-1, accepted.getInputStream().read(new byte[10]), "EOF is sticky");

            byte[] reply = Io.pattern(7, 500);
            accepted.getOutputStream().write(reply);
            assertArrayEquals(reply, Io.readFully(client.getInputStream(), reply.length));
            assertFalse(client.isClosed());
            assertThrows(SocketException.class, client::getOutputStream, "no new stream for a shut-down output");
        }
    }

    @TransportTest
    void socketShutdownInputReadsEof(Transport transport) throws IOException {
        try (SocketPair pair = SocketPair.open(transport)) {
            Socket client = pair.client();
            InputStream in = client.getInputStream();
            client.shutdownInput();
            assertTrue(client.isInputShutdown());
            assertFalse(client.isOutputShutdown());
            assertEquals(-1, in.read());
            assertThrows(SocketException.class, client::getInputStream, "no new stream for a shut-down input");
            client.getOutputStream().write(5);
            assertEquals(5, pair.accepted().getInputStream().read(), "output still works");
        }
    }

    @TransportTest
    void channelShutdownInputEndsABlockedRead(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            Async<Integer> reader = Async.start("reader", () -> client.read(ByteBuffer.allocate(10)));
            reader.awaitBlockedIn("read");
            client.shutdownInput();
            assertEquals(-1, reader.get(), "the blocked read returns end of stream");
            assertTrue(client.isOpen());
        }
    }

    @TransportTest
    void socketShutdownInputEndsABlockedRead(Transport transport) throws Exception {
        try (SocketPair pair = SocketPair.open(transport)) {
            InputStream in = pair.client().getInputStream();
            Async<Integer> reader = Async.start("reader", in::read);
            reader.awaitBlockedIn("read");
            pair.client().shutdownInput();
            assertEquals(-1, reader.get(), "the blocked read returns end of stream");
            assertFalse(pair.client().isClosed());
        }
    }

    /**
     * A client writes right after connecting, before the server has accepted, then shuts its output down and makes
     * no other call: the FIN must still go out once the connection is made, as the kernel sends it over TCP.
     */
    @TransportTest
    void shutdownOutputBeforeAcceptStillEndsThePeersInput(Transport transport) throws Exception {
        try (ServerSocketChannel server = transport.openServerChannel();
                SocketChannel client = SocketChannel.open(transport.connectAddress(server))) {
            client.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            client.shutdownOutput();
            try (SocketChannel accepted = server.accept()) {
                assertArrayEquals(new byte[] {1, 2, 3}, Io.readFully(accepted, 3));
                assertEquals(-1, Async.start("reader", () -> accepted.read(ByteBuffer.allocate(1))).get(),
                        "end of stream after the early bytes");
            }
        }
    }

    /** As above over java.net. */
    @TransportTest
    void socketShutdownOutputBeforeAcceptStillEndsThePeersInput(Transport transport) throws Exception {
        try (ServerSocket server = transport.openServerSocket();
                Socket client = new Socket()) {
            client.connect(transport.connectAddress(server));
            client.getOutputStream().write(new byte[] {1, 2, 3});
            client.shutdownOutput();
            try (Socket accepted = server.accept()) {
                InputStream in = accepted.getInputStream();
                assertArrayEquals(new byte[] {1, 2, 3}, Io.readFully(in, 3));
                assertEquals(-1, Async.start("reader", in::read).get(), "end of stream after the early bytes");
            }
        }
    }

    /**
     * Netty's shutdown-output-by-peer test: the client writes right after connecting, the server accepts and reads
     * that byte, then the client shuts its output down and makes no other call. The server's answer to the
     * handshake reached the client before it armed for it, so nothing rings for it later: the shutdown itself must
     * take it, and send the FIN.
     */
    @TransportTest
    void shutdownOutputAfterThePeerReadEarlyBytesEndsItsInput(Transport transport) throws Exception {
        try (ServerSocket server = transport.openServerSocket(); Socket client = new Socket()) {
            client.connect(transport.connectAddress(server));
            client.getOutputStream().write(1);
            try (Socket accepted = server.accept()) {
                InputStream in = accepted.getInputStream();
                assertEquals(1, in.read());
                client.shutdownOutput();
                assertEquals(-1, Async.start("reader", in::read).get(), "end of stream after the shutdown");
            }
        }
    }
}
