package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sovia.spi.transport.PathKind;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Flow control: a writer blocked for want of buffer space goes on as soon as the reader has made room. */
class FlowControlIT extends SoviaTestBase {

    private static final int MIB = 1024 * 1024;
    private static final int SMALL_BUFFER = 64 * 1024;

    /**
     * The writer's one write is larger than what the connection buffers, so it can only end once the reader has read
     * some; the reader reads half of it and then makes no socket call at all until the write has ended. Over TCP the
     * kernel announces the room the read made by itself; Sovia must tell the writer as well, without waiting for the
     * reader's next call, or both would wait for each other.
     */
    @TransportTest
    void writeEndsWhileReaderMakesNoFurtherCall(Transport transport) throws Exception {
        int total = bytesBeyondBuffers(transport);
        writeEndsAfterOneRead(transport, total, total - bytesLeftAfterRead(transport));
    }

    /**
     * As above, but the reader frees less than half its receive buffer, which the engine does not announce on its
     * own: the blocked writer's window probe, and the nudge that makes the reader's side answer it without a call
     * from the reader, must. Over TCP the kernel's buffer sizes decide what fits, so only the engine's paths run.
     */
    @TransportTest
    void smallReadUnblocksWriterWithoutFurtherCall(Transport transport) throws Exception {
        assumeTrue(transport.path() != PathKind.TCP && !Boolean.getBoolean("sovia.it.plain"), "engine paths only");
        int read = 400 * 1024;
        int total = Integer.getInteger("sovia.rcvbuf", MIB) + Integer.getInteger("sovia.sndbuf", 128 * 1024) + read / 2;
        writeEndsAfterOneRead(transport, total, read);
    }

    /**
     * SO_RCVBUF set on the listener and SO_SNDBUF on the client before they connect bound what a writer can have
     * sent while its reader reads nothing, as the kernel's buffers do over TCP; unset, the engine's defaults (over a
     * megabyte) would let far more through. Everything written then arrives.
     */
    @TransportTest
    void bufferSizesSetBeforeConnectingBoundWhatGoesUnread(Transport transport) throws Exception {
        assumeFalse(transport instanceof RelayedTransport, "the relay's own connections buffer as they like");
        try (ServerSocketChannel server = transport.openServerChannel(); SocketChannel client = SocketChannel.open()) {
            server.setOption(StandardSocketOptions.SO_RCVBUF, SMALL_BUFFER);
            client.setOption(StandardSocketOptions.SO_SNDBUF, SMALL_BUFFER / 4);
            client.connect(transport.connectAddress(server));
            try (SocketChannel accepted = server.accept()) {
                client.configureBlocking(false);
                int unread = Io.writeUntilFull(client);
                assertTrue(unread < 8 * SMALL_BUFFER, () -> unread + " bytes went out unread with SO_RCVBUF "
                        + SMALL_BUFFER + " at the reader and SO_SNDBUF " + SMALL_BUFFER / 4 + " at the writer");
                assertArrayEquals(Io.pattern(0, unread), Io.readFully(accepted, unread));
            }
        }
    }

    /**
     * One blocking write of {@code total} bytes; the reader takes {@code read} of them and makes no socket call until
     * the write has ended, then takes the rest. Both parts must be what was sent.
     */
    private static void writeEndsAfterOneRead(Transport transport, int total, int read) throws Exception {
        byte[] sent = Io.pattern(0, total);
        try (NioPair pair = NioPair.open(transport)) {
            CountDownLatch written = new CountDownLatch(1);
            Async<Integer> writer = Async.start("writer", () -> {
                int n = pair.client().write(ByteBuffer.wrap(sent));
                written.countDown();
                return n;
            });
            byte[] first = Io.readFully(pair.accepted(), read);
            assertTrue(written.await(Io.WAIT_MILLIS, TimeUnit.MILLISECONDS),
                    () -> "a write of " + total + " bytes did not end after the reader took " + read
                            + " of them: the writer still waits for room the reader made");
            assertEquals(total, writer.get(), "a blocking write writes everything");
            byte[] rest = Io.readFully(pair.accepted(), total - read);
            assertArrayEquals(Arrays.copyOf(sent, read), first);
            assertArrayEquals(Arrays.copyOfRange(sent, read, total), rest);
        }
    }

    /**
     * What the reader leaves unread: over the engine half the write, which its buffers hold; over TCP only 256 KiB,
     * because how much a new loopback connection holds depends on how far the kernel's autotuning has grown its
     * buffers (the send buffer stops at tcp_wmem's 4 MiB here), so half of 8 MiB does not always fit.
     */
    private static int bytesLeftAfterRead(Transport transport) {
        if (Boolean.getBoolean("sovia.it.plain") || transport.path() == PathKind.TCP) {
            return 256 * 1024;
        }
        return bytesBeyondBuffers(transport) / 2;
    }

    /**
     * More than the connection buffers: over Sovia's engine the receive buffer, which the writer may fill, plus what
     * the writer's session accepts beyond it, plus a mebibyte; over TCP well beyond the kernel's defaults for a new
     * connection.
     */
    private static int bytesBeyondBuffers(Transport transport) {
        if (Boolean.getBoolean("sovia.it.plain") || transport.path() == PathKind.TCP) {
            return 8 * MIB;
        }
        return Integer.getInteger("sovia.rcvbuf", MIB) + Integer.getInteger("sovia.sndbuf", 128 * 1024) + MIB;
    }
}
