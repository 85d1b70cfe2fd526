package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

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
 * JDK over TCP, whether the peer was blocked in that read at the time or reads later. The bytes that arrived before
 * the reset stay readable before it, as on Linux.
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

    /**
     * Linux keeps what arrived before a reset: the reader takes those bytes, then gets the reset, which the JDK's
     * channel keeps reporting to reads.
     */
    @TransportTest
    void channelReadsWhatArrivedBeforeAReset(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            byte[] sent = Io.pattern(0, 1000);
            Io.writeFully(pair.client(), ByteBuffer.wrap(sent));
            abort(pair.client());
            SocketChannel peer = pair.accepted();
            assertArrayEquals(sent, Io.readFully(peer, sent.length), "the bytes sent before the reset");
            assertReset(Async.start("reader", () -> peer.read(ByteBuffer.allocate(1))).failure());
            assertReset(Async.start("reader", () -> peer.read(ByteBuffer.allocate(1))).failure());
        }
    }

    /** As above over java.net. */
    @TransportTest
    void socketReadsWhatArrivedBeforeAReset(Transport transport) throws Exception {
        try (SocketPair pair = SocketPair.open(transport)) {
            byte[] sent = Io.pattern(0, 1000);
            pair.accepted().getOutputStream().write(sent);
            abort(pair.accepted());
            InputStream in = pair.client().getInputStream();
            assertArrayEquals(sent, Io.readFully(in, sent.length), "the bytes sent before the reset");
            assertReset(Async.start("reader", in::read).failure());
            assertReset(Async.start("reader", in::read).failure());
        }
    }

    /**
     * Netty's half-close test: the peer writes and resets while this end is not reading; this end's writes then
     * fail, yet its reads still return what the peer sent before the reset, then end of stream: the write took the
     * kernel's one report of the reset.
     */
    @TransportTest
    void writeFailsAfterAResetYetTheDataBeforeItIsRead(Transport transport) throws Exception {
        // a relay's two directions are independent: the write it fails to pass on resets this end before the
        // other direction has passed the data on, as a TCP proxy would
        assumeFalse(transport instanceof RelayedTransport, "the relay cannot keep this order");
        try (NioPair pair = NioPair.open(transport)) {
            byte[] sent = Io.pattern(0, 100);
            Io.writeFully(pair.client(), ByteBuffer.wrap(sent));
            abort(pair.client());
            SocketChannel peer = pair.accepted();
            Async<Integer> writer = Async.start("writer", () -> {
                int writes = 0;
                while (true) {
                    peer.write(ByteBuffer.wrap(new byte[] {1}));
                    writes++;
                    Thread.sleep(1);
                }
            });
            assertInstanceOf(IOException.class, writer.failure(), "a write after the reset fails");
            assertTrue(peer.isOpen());
            assertArrayEquals(sent, Io.readFully(peer, sent.length), "the bytes sent before the reset");
            assertEquals(-1, peer.read(ByteBuffer.allocate(1)));
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
