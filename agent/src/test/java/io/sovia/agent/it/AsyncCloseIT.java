package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** A thread blocked in a socket call is released by an interrupt or by another thread closing the socket. */
class AsyncCloseIT extends SoviaTestBase {

    @TransportTest
    void interruptBlockedChannelRead(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            Async<Boolean> reader = Async.start("reader", () -> readExpectingInterrupt(client));
            reader.awaitBlockedIn("read").thread().interrupt();
            assertTrue(reader.get(), "the reader keeps its interrupt status");
            assertFalse(client.isOpen());
            assertEquals(-1, pair.accepted().read(ByteBuffer.allocate(1)), "the peer sees EOF");
        }
    }

    @TransportTest
    void interruptBeforeChannelRead(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            Async<Boolean> reader = Async.start("reader", () -> {
                Thread.currentThread().interrupt();
                return readExpectingInterrupt(client);
            });
            assertTrue(reader.get(), "the reader keeps its interrupt status");
            assertFalse(client.isOpen());
            assertEquals(-1, pair.accepted().read(ByteBuffer.allocate(1)), "the peer sees EOF");
        }
    }

    @TransportTest
    void closeDuringChannelRead(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            Async<Integer> reader = Async.start("reader", () -> client.read(ByteBuffer.allocate(1)));
            assertCloseEndsBlockedCall(reader, "read", client);
            assertFalse(client.isOpen());
            assertEquals(-1, pair.accepted().read(ByteBuffer.allocate(1)), "the peer sees EOF");
        }
    }

    @TransportTest
    void closeDuringSocketRead(Transport transport) throws Exception {
        try (SocketPair pair = SocketPair.open(transport)) {
            var in = pair.client().getInputStream();
            Async<Integer> reader = Async.start("reader", in::read);
            reader.awaitBlockedIn("read");
            pair.client().close();
            assertInstanceOf(SocketException.class, reader.failure());
            assertTrue(pair.client().isClosed());
            assertEquals(-1, pair.accepted().getInputStream().read(), "the peer sees EOF");
        }
    }

    @TransportTest
    void closeDuringChannelAccept(Transport transport) throws Exception {
        ServerSocketChannel server = transport.openServerChannel();
        try {
            assertCloseEndsBlockedCall(Async.start("acceptor", server::accept), "accept", server);
            assertFalse(server.isOpen());
        } finally {
            server.close();
        }
    }

    @TransportTest
    void interruptDuringChannelAccept(Transport transport) throws Exception {
        try (ServerSocketChannel server = transport.openServerChannel()) {
            Async<SocketChannel> acceptor = Async.start("acceptor", server::accept);
            acceptor.awaitBlockedIn("accept").thread().interrupt();
            assertInstanceOf(ClosedByInterruptException.class, acceptor.failure());
            assertFalse(server.isOpen());
        }
    }

    @TransportTest
    void closeDuringAdaptorAccept(Transport transport) throws Exception {
        ServerSocketChannel server = transport.openServerChannel();
        try {
            ServerSocket adaptor = server.socket();
            // the JDK's adaptor passes the channel's exception through, untranslated
            assertCloseEndsBlockedCall(Async.start("acceptor", adaptor::accept), "accept", server);
            assertTrue(adaptor.isClosed());
            // JDK 17 throws AsynchronousCloseException here too, JDK 25 its superclass
            assertInstanceOf(ClosedChannelException.class, assertThrows(IOException.class, adaptor::accept));
        } finally {
            server.close();
        }
    }

    @TransportTest
    void closeDuringSocketAccept(Transport transport) throws Exception {
        ServerSocket server = transport.openServerSocket();
        try {
            Async<Socket> acceptor = Async.start("acceptor", server::accept);
            acceptor.awaitBlockedIn("accept");
            server.close();
            Throwable thrown = acceptor.failure();
            assertInstanceOf(SocketException.class, thrown);
            assertEquals("Socket closed", thrown.getMessage());
            assertTrue(server.isClosed());
        } finally {
            server.close();
        }
    }

    /**
     * Closes {@code channel} once {@code blocked} waits in {@code method}; the call must end with
     * AsynchronousCloseException, not its interrupt subclass.
     */
    private static void assertCloseEndsBlockedCall(Async<?> blocked, String method, AutoCloseable channel)
            throws Exception {
        blocked.awaitBlockedIn(method);
        channel.close();
        Throwable thrown = blocked.failure();
        assertInstanceOf(AsynchronousCloseException.class, thrown);
        assertFalse(thrown instanceof ClosedByInterruptException, thrown::toString);
    }

    /** Runs a read that must fail with ClosedByInterruptException; returns the interrupt status afterwards. */
    static boolean readExpectingInterrupt(SocketChannel channel) throws IOException {
        try {
            int n = channel.read(ByteBuffer.allocate(1));
            return fail("read returned " + n + " instead of throwing ClosedByInterruptException");
        } catch (ClosedByInterruptException expected) {
            return Thread.currentThread().isInterrupted();
        }
    }
}
