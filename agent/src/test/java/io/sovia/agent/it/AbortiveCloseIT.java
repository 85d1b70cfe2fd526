package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * Closing with SO_LINGER 0 resets the connection: the peer's next read fails with "Connection reset", as with the
 * JDK over TCP, whether the peer was blocked in that read at the time or reads later. Bytes written just before such
 * a close may be lost (TCP delivers those already received before the reset; Sovia may drop them), so the scenarios
 * only check that what does arrive is what was sent.
 *
 * <p>Over shm-2jvm the reset passes through the relay, which answers a failed read with an abortive close of its
 * other side.
 */
class AbortiveCloseIT extends SoviaTestBase {

    private static final String RESET = "Connection reset";

    @TransportTest
    void channelLingerZeroResetsPeerBlockedInRead(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel peer = pair.accepted();
            Async<Integer> reader = Async.start("reader", () -> peer.read(ByteBuffer.allocate(1)));
            reader.awaitBlockedIn("read");
            abort(pair.client());
            assertReset(reader.failure());
        }
    }

    @TransportTest
    void channelLingerZeroResetsPeerReadingLater(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            byte[] sent = Io.pattern(0, 1000);
            Io.writeFully(pair.client(), ByteBuffer.wrap(sent));
            abort(pair.client());
            SocketChannel peer = pair.accepted();
            peer.configureBlocking(false);
            SelectionKey key = peer.register(selector, SelectionKey.OP_READ);
            // Readiness shows what the reset left: data sent before it, or the reset itself.
            ByteBuffer received = ByteBuffer.allocate(sent.length + 1);
            try {
                while (true) {
                    Io.awaitReady(selector, key, SelectionKey.OP_READ);
                    if (peer.read(received) < 0) {
                        fail("EOF after " + received.position() + " bytes instead of a reset");
                    }
                    assertArrayEquals(Arrays.copyOf(sent, received.position()),
                            Arrays.copyOf(received.array(), received.position()), "what arrives is what was sent");
                }
            } catch (IOException expected) {
                assertReset(expected);
            }
        }
    }

    @TransportTest
    void socketLingerZeroResetsPeerBlockedInRead(Transport transport) throws Exception {
        try (SocketPair pair = SocketPair.open(transport)) {
            InputStream in = pair.client().getInputStream();
            Async<Integer> reader = Async.start("reader", in::read);
            reader.awaitBlockedIn("read");
            abort(pair.accepted());
            assertReset(reader.failure());
        }
    }

    @TransportTest
    void socketLingerZeroResetsPeerReadingLater(Transport transport) throws IOException {
        try (SocketPair pair = SocketPair.open(transport)) {
            byte[] sent = Io.pattern(0, 1000);
            pair.accepted().getOutputStream().write(sent);
            abort(pair.accepted());
            InputStream in = pair.client().getInputStream();
            byte[] received = new byte[sent.length + 1];
            int total = 0;
            try {
                while (true) {
                    int n = in.read(received, total, received.length - total);
                    if (n < 0) {
                        fail("EOF after " + total + " bytes instead of a reset");
                    }
                    total += n;
                    assertArrayEquals(Arrays.copyOf(sent, total), Arrays.copyOf(received, total),
                            "what arrives is what was sent");
                }
            } catch (IOException expected) {
                assertReset(expected);
            }
        }
    }

    private static void abort(SocketChannel channel) throws IOException {
        channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        channel.close();
        assertFalse(channel.isOpen());
    }

    private static void abort(Socket socket) throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
        assertTrue(socket.isClosed());
    }

    private static void assertReset(Throwable thrown) {
        IOException io = assertInstanceOf(IOException.class, thrown);
        String message = String.valueOf(io.getMessage());
        assertTrue(message.contains(RESET), () -> "expected \"" + RESET + "\", got " + io);
    }
}
