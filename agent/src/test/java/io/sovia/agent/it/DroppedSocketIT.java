package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A java.net socket the app drops without closing is closed once the garbage collector finds it, as the
 * JDK's own impl does through a Cleaner: its peer reads what was written, then end of stream. (Channels are not
 * cleaned, on the JDK either.)
 */
class DroppedSocketIT extends SoviaTestBase {
    private static final byte[] LAST_WORDS = "written, then dropped".getBytes(StandardCharsets.US_ASCII);

    @TransportTest
    void droppedClientIsClosed(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket()) {
            long before = transport.carried();
            writeAndDrop(transport.connectAddress(server));
            try (Socket accepted = server.accept()) {
                transport.assertCarried(before, "a client dropped after writing");
                assertLastWordsThenEnd(accepted);
            }
        }
    }

    @TransportTest
    void droppedAcceptedSocketIsClosed(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket(); Socket client = new Socket()) {
            client.connect(transport.connectAddress(server));
            acceptWriteAndDrop(server);
            assertLastWordsThenEnd(client);
        }
    }

    /** In a method of its own, so nothing on the test's stack keeps the socket reachable. */
    private static void writeAndDrop(SocketAddress to) throws IOException {
        Socket dropped = new Socket();
        dropped.connect(to);
        dropped.getOutputStream().write(LAST_WORDS);
    }

    private static void acceptWriteAndDrop(ServerSocket server) throws IOException {
        server.accept().getOutputStream().write(LAST_WORDS);
    }

    private static void assertLastWordsThenEnd(Socket reader) throws IOException {
        assertArrayEquals(LAST_WORDS, Io.readFully(reader.getInputStream(), LAST_WORDS.length));
        reader.setSoTimeout(100);
        InputStream in = reader.getInputStream();
        long deadline = System.nanoTime() + Io.WAIT_MILLIS * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            System.gc();
            try {
                int n = in.read();
                if (n < 0) {
                    return;
                }
                fail("read " + n + " after the last words");
            } catch (SocketTimeoutException stillOpen) {
                // the collector has not found the dropped socket yet
            }
        }
        fail("the dropped socket was never closed: no end of stream within " + Io.WAIT_MILLIS + " ms");
    }
}
