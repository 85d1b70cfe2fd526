package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * TCP_NODELAY reaches the connection's engine, whether set before the connect (the session takes it from the setup
 * socket) or after, through either API: a second small write, while the first is still unread, goes out at once.
 * Without it the engine would combine it for {@code sovia.nagle.micros}, set to {@value #NAGLE_MICROS} here for
 * the connections these tests make, so a write that arrives within {@link Io#WAIT_MILLIS} was not combined.
 */
class NoDelayIT extends SoviaTestBase {
    private static final String NAGLE_PROPERTY = "sovia.nagle.micros";
    private static final long NAGLE_MICROS = 60_000_000;

    @TransportTest
    void channelNoDelaySetBeforeConnecting(Transport transport) throws Exception {
        try (ServerSocketChannel server = transport.openServerChannel(); SocketChannel client = SocketChannel.open()) {
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            withLongNagle(() -> client.connect(transport.connectAddress(server)));
            try (SocketChannel accepted = server.accept()) {
                assertSecondSmallWriteArrives(client, accepted.socket().getInputStream());
            }
        }
    }

    @TransportTest
    void channelNoDelaySetAfterConnecting(Transport transport) throws Exception {
        try (ServerSocketChannel server = transport.openServerChannel(); SocketChannel client = SocketChannel.open()) {
            withLongNagle(() -> client.connect(transport.connectAddress(server)));
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            try (SocketChannel accepted = server.accept()) {
                assertSecondSmallWriteArrives(client, accepted.socket().getInputStream());
            }
        }
    }

    @TransportTest
    void socketNoDelaySetBeforeConnecting(Transport transport) throws Exception {
        try (ServerSocket server = transport.openServerSocket(); Socket client = new Socket()) {
            client.setTcpNoDelay(true);
            withLongNagle(() -> client.connect(transport.connectAddress(server)));
            try (Socket accepted = server.accept()) {
                assertSecondSmallWriteArrives(client, accepted.getInputStream());
            }
        }
    }

    @TransportTest
    void socketNoDelaySetAfterConnecting(Transport transport) throws Exception {
        try (ServerSocket server = transport.openServerSocket(); Socket client = new Socket()) {
            withLongNagle(() -> client.connect(transport.connectAddress(server)));
            client.setTcpNoDelay(true);
            try (Socket accepted = server.accept()) {
                assertSecondSmallWriteArrives(client, accepted.getInputStream());
            }
        }
    }

    private static void assertSecondSmallWriteArrives(SocketChannel client, InputStream peer) throws Exception {
        client.write(ByteBuffer.wrap(new byte[] {1}));
        client.write(ByteBuffer.wrap(new byte[] {2}));
        assertBothArrive(peer);
    }

    private static void assertSecondSmallWriteArrives(Socket client, InputStream peer) throws Exception {
        client.getOutputStream().write(1);
        client.getOutputStream().write(2);
        assertBothArrive(peer);
    }

    /** The first byte stays unread until the second has arrived too, so nothing tells the writer it was taken. */
    private static void assertBothArrive(InputStream peer) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Io.WAIT_MILLIS);
        while (peer.available() < 2 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertArrayEquals(new byte[] {1, 2}, Io.readFully(peer, 2), "both small writes");
    }

    /** What {@link #withLongNagle} runs: a connect, whose session takes the combining delay. */
    @FunctionalInterface
    private interface Connect {
        void run() throws IOException;
    }

    private static void withLongNagle(Connect connect) throws IOException {
        String before = System.getProperty(NAGLE_PROPERTY);
        System.setProperty(NAGLE_PROPERTY, Long.toString(NAGLE_MICROS));
        try {
            connect.run();
        } finally {
            if (before == null) {
                System.clearProperty(NAGLE_PROPERTY);
            } else {
                System.setProperty(NAGLE_PROPERTY, before);
            }
        }
    }
}
