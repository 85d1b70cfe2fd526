package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;

/**
 * A writer blocked because its peer reads nothing is released by another thread closing the socket or, for a
 * channel, by an interrupt, with the JDK's exceptions; the channel is closed afterwards. A close may also end a
 * channel write with the count it wrote so far: the JDK's blocking write returns what the kernel's send took before
 * the close signalled the writer, and only a write that wrote nothing throws AsynchronousCloseException.
 */
class BlockedWriteIT extends SoviaTestBase {
    /** More than any path buffers: the kernel's socket buffers, or a session's window plus its send buffer. */
    private static final int MORE_THAN_BUFFERED = 64 * 1024 * 1024;

    @TransportTest
    void closeDuringChannelWrite(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            Async<Integer> writer = Async.start("writer", () -> {
                try {
                    return client.write(ByteBuffer.allocate(MORE_THAN_BUFFERED));
                } catch (AsynchronousCloseException e) {
                    assertFalse(e instanceof ClosedByInterruptException, e::toString);
                    return -1;
                }
            });
            writer.awaitBlockedIn("write");
            client.close();
            int written = writer.get();
            assertTrue(written == -1 || written > 0 && written < MORE_THAN_BUFFERED,
                    () -> "AsynchronousCloseException, or the count written before the close; got " + written);
            assertFalse(client.isOpen());
        }
    }

    @TransportTest
    void interruptDuringChannelWrite(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            Async<Boolean> writer = Async.start("writer", () -> {
                try {
                    client.write(ByteBuffer.allocate(MORE_THAN_BUFFERED));
                    return false;
                } catch (ClosedByInterruptException expected) {
                    return Thread.currentThread().isInterrupted();
                }
            });
            writer.awaitBlockedIn("write").thread().interrupt();
            assertTrue(writer.get(), "ClosedByInterruptException, and the writer keeps its interrupt status");
            assertFalse(client.isOpen());
        }
    }

    @TransportTest
    void closeDuringSocketWrite(Transport transport) throws Exception {
        try (SocketPair pair = SocketPair.open(transport)) {
            OutputStream out = pair.client().getOutputStream();
            Async<Void> writer = Async.start("writer", () -> {
                out.write(new byte[MORE_THAN_BUFFERED]);
                return null;
            });
            writer.awaitBlockedIn("write");
            pair.client().close();
            assertInstanceOf(SocketException.class, writer.failure());
            assertTrue(pair.client().isClosed());
        }
    }
}
