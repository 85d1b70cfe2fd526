package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;

/** SO_TIMEOUT on reads and accepts, and connect timeouts: a timeout must not break the socket. */
class SoTimeoutIT extends SoviaTestBase {

    private static final int TIMEOUT_MILLIS = 200;

    @TransportTest
    void socketReadTimesOutAndStaysUsable(Transport transport) throws IOException {
        try (SocketPair pair = SocketPair.open(transport)) {
            Socket client = pair.client();
            client.setSoTimeout(TIMEOUT_MILLIS);
            InputStream in = client.getInputStream();
            assertTimesOut(in::read);
            assertTrue(client.isConnected() && !client.isClosed());
            pair.accepted().getOutputStream().write(7);
            assertEquals(7, in.read(), "the read after a timeout gets the data");
            Io.assertTalks(client, pair.accepted());
        }
    }

    @TransportTest
    void serverAcceptTimesOutAndStaysUsable(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket()) {
            server.setSoTimeout(TIMEOUT_MILLIS);
            assertTimesOut(() -> server.accept().close());
            try (Socket client = new Socket()) {
                client.connect(transport.connectAddress(server));
                try (Socket accepted = server.accept()) {
                    Io.assertTalks(client, accepted);
                }
            }
        }
    }

    @TransportTest
    void channelAdaptorStreamReadTimesOut(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport)) {
            Socket adaptor = pair.client().socket();
            adaptor.setSoTimeout(TIMEOUT_MILLIS);
            InputStream in = adaptor.getInputStream();
            assertTimesOut(in::read);
            assertTrue(pair.client().isOpen() && pair.client().isConnected());
            pair.accepted().write(ByteBuffer.wrap(new byte[] {9}));
            assertEquals(9, in.read(), "the read after a timeout gets the data");
            Io.assertTalks(pair.client(), pair.accepted());
        }
    }

    @TransportTest
    void socketConnectWithTimeoutRefused(Transport transport) throws IOException {
        SocketAddress refused = transport.refusedAddress();
        try (Socket socket = new Socket()) {
            assertThrows(ConnectException.class, () -> socket.connect(refused, 5_000));
        }
        try (SocketChannel channel = SocketChannel.open()) {
            assertThrows(ConnectException.class, () -> channel.socket().connect(refused, 5_000));
        }
    }

    /** The call must time out, and not before its timeout: an implementation ignoring it would throw at once. */
    private static void assertTimesOut(Executable call) {
        long start = System.nanoTime();
        assertThrows(SocketTimeoutException.class, call);
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited >= TIMEOUT_MILLIS / 2, () -> "timed out after " + waited + " ms, timeout " + TIMEOUT_MILLIS);
    }
}
