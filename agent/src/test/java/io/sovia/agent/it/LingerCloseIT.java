package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * SO_LINGER with a positive time on a blocking socket: close waits until the peer has everything written (over TCP,
 * until the kernel has its ACKs), for at most that time. Small buffers (SO_RCVBUF at the listener, SO_SNDBUF at the
 * client) make sure bytes are still waiting to go when the close comes.
 */
class LingerCloseIT extends SoviaTestBase {
    private static final int SMALL_BUFFER = 64 * 1024;
    private static final int LINGER_SECONDS = 1;

    /** The reader reads nothing: the close waits out the linger time. */
    @TransportTest
    void closeWaitsTheLingerTimeWhileBytesCannotGo(Transport transport) throws Exception {
        assertCloseWaitsTheLingerTime(transport, client -> {
            client.setOption(StandardSocketOptions.SO_LINGER, LINGER_SECONDS);
            client.close();
        });
    }

    /** As above through the channel's socket adaptor: {@code setSoLinger(true, 1)} and its close. */
    @TransportTest
    void adaptorCloseWaitsTheLingerTimeWhileBytesCannotGo(Transport transport) throws Exception {
        assertCloseWaitsTheLingerTime(transport, client -> {
            Socket socket = client.socket();
            socket.setSoLinger(true, LINGER_SECONDS);
            socket.close();
        });
    }

    /** How a test sets SO_LINGER on the client and closes it. */
    @FunctionalInterface
    private interface LingeringClose {
        void close(SocketChannel client) throws IOException;
    }

    private static void assertCloseWaitsTheLingerTime(Transport transport, LingeringClose lingeringClose)
            throws Exception {
        assumeFalse(transport instanceof RelayedTransport, "the relay's own connections buffer as they like");
        try (ServerSocketChannel server = smallBufferedServer(transport); SocketChannel client = smallBufferedClient()) {
            client.connect(transport.connectAddress(server));
            try (SocketChannel accepted = server.accept()) {
                fill(client);
                long start = System.nanoTime();
                lingeringClose.close(client);
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(took >= LINGER_SECONDS * 1000 - 100, () -> "close returned after " + took
                        + " ms with bytes still to go and SO_LINGER " + LINGER_SECONDS + " s");
            }
        }
    }

    /** The reader starts reading a little later: the close returns once it has everything, well within the time. */
    @TransportTest
    void closeReturnsOnceThePeerHasEverything(Transport transport) throws Exception {
        assumeFalse(transport instanceof RelayedTransport, "the relay's own connections buffer as they like");
        try (ServerSocketChannel server = smallBufferedServer(transport); SocketChannel client = smallBufferedClient()) {
            client.connect(transport.connectAddress(server));
            try (SocketChannel accepted = server.accept()) {
                int sent = fill(client);
                client.setOption(StandardSocketOptions.SO_LINGER, 30);
                Async<byte[]> reader = Async.start("reader", () -> {
                    Thread.sleep(300);
                    byte[] all = Io.readFully(accepted, sent);
                    assertEquals(-1, accepted.read(ByteBuffer.allocate(1)), "end of stream after the close");
                    return all;
                });
                long start = System.nanoTime();
                client.close();
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(took >= 200, () -> "close returned after " + took + " ms, before the reader took anything");
                assertArrayEquals(Io.pattern(0, sent), reader.get());
            }
        }
    }

    private static ServerSocketChannel smallBufferedServer(Transport transport) throws Exception {
        ServerSocketChannel server = transport.openServerChannel();
        server.setOption(StandardSocketOptions.SO_RCVBUF, SMALL_BUFFER);
        return server;
    }

    private static SocketChannel smallBufferedClient() throws Exception {
        SocketChannel client = SocketChannel.open();
        client.setOption(StandardSocketOptions.SO_SNDBUF, SMALL_BUFFER / 4);
        return client;
    }

    /** Writes until the connection takes no more (see {@link Io#writeUntilFull}); leaves the channel blocking. */
    private static int fill(SocketChannel channel) throws Exception {
        channel.configureBlocking(false);
        int written = Io.writeUntilFull(channel);
        channel.configureBlocking(true);
        return written;
    }
}
