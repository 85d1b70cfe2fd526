package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
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
}
