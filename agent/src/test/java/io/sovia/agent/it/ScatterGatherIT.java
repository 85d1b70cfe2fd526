package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/** Gathering writes, scattering reads, and non-blocking writes into a full socket; every byte is checked. */
class ScatterGatherIT extends SoviaTestBase {

    /** Buffer sizes, from empty to more than one write can take at once; even indexes heap, odd ones direct. */
    private static final int[] SIZES = {50, 100, 5_000, 0, 300_000, 333};

    @TransportTest
    void gatheringWriteOfHeapAndDirectBuffers(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            ByteBuffer[] srcs = buffers();
            long offset = 0;
            for (ByteBuffer src : srcs) {
                src.put(Io.pattern(offset, src.capacity())).flip();
                offset += src.capacity();
            }
            // Write the middle four: the first and last buffer must stay untouched.
            int expected = SIZES[1] + SIZES[2] + SIZES[3] + SIZES[4];
            Async<byte[]> reader = Async.start("reader", () -> Io.readFully(pair.accepted(), expected));
            long written = 0;
            while (srcs[4].hasRemaining()) {
                written += pair.client().write(srcs, 1, 4);
            }
            assertEquals(expected, written);
            assertEquals(0, srcs[0].position());
            assertEquals(0, srcs[5].position());
            assertArrayEquals(Io.pattern(SIZES[0], expected), reader.get());
        }
    }

    @TransportTest
    void scatteringReadIntoHeapAndDirectBuffers(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            ByteBuffer[] dsts = buffers();
            int expected = SIZES[1] + SIZES[2] + SIZES[3] + SIZES[4];
            byte[] sent = Io.pattern(0, expected + 10);
            Async<Void> writer = Async.start("writer", () -> {
                Io.writeFully(pair.accepted(), ByteBuffer.wrap(sent));
                return null;
            });
            long read = 0;
            while (dsts[4].hasRemaining()) {
                long n = pair.client().read(dsts, 1, 4);
                assertTrue(n > 0, () -> "read returned " + n);
                read += n;
            }
            writer.get();
            assertEquals(expected, read);
            assertEquals(0, dsts[0].position());
            assertEquals(0, dsts[5].position());
            assertArrayEquals(Arrays.copyOf(sent, expected), concat(Arrays.copyOfRange(dsts, 1, 5)));
            assertArrayEquals(Arrays.copyOfRange(sent, expected, sent.length), Io.readFully(pair.client(), 10),
                    "bytes beyond the buffers stay for the next read");
        }
    }

    @TransportTest
    void nonBlockingWritesFillTheSocketThenResumeOnOpWrite(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            SocketChannel client = pair.client();
            client.configureBlocking(false);
            PatternWriter writer = new PatternWriter(client);
            while (writer.writeOnce(Long.MAX_VALUE) > 0) {
                // Nobody reads yet, so the socket fills up until a write accepts nothing.
            }
            assertTrue(writer.written > 0);
            long total = writer.generated + 1024 * 1024;
            Async<byte[]> drainer = Async.start("drainer", () -> Io.readFully(pair.accepted(), (int) total));
            SelectionKey key = client.register(selector, SelectionKey.OP_WRITE);
            while (writer.written < total) {
                Io.awaitReady(selector, key, SelectionKey.OP_WRITE);
                while (writer.written < total && writer.writeOnce(total) > 0) {
                    // Write until the socket is full again or everything is out.
                }
            }
            assertArrayEquals(Io.pattern(0, (int) total), drainer.get(), "all bytes arrive, in order");
        }
    }

    private static ByteBuffer[] buffers() {
        ByteBuffer[] buffers = new ByteBuffer[SIZES.length];
        for (int i = 0; i < SIZES.length; i++) {
            buffers[i] = i % 2 == 0 ? ByteBuffer.allocate(SIZES[i]) : ByteBuffer.allocateDirect(SIZES[i]);
        }
        return buffers;
    }

    private static byte[] concat(ByteBuffer[] buffers) {
        ByteBuffer all = ByteBuffer.allocate(Arrays.stream(buffers).mapToInt(ByteBuffer::capacity).sum());
        for (ByteBuffer buffer : buffers) {
            all.put(buffer.flip());
        }
        return all.array();
    }

    /** Writes the {@link Io#pattern} stream through one direct buffer, resuming where a partial write stopped. */
    private static final class PatternWriter {
        private final ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024).limit(0);
        private final SocketChannel channel;
        private long generated;
        private long written;

        PatternWriter(SocketChannel channel) {
            this.channel = channel;
        }

        /** One non-blocking write, never generating bytes past {@code end}; returns what the channel took. */
        int writeOnce(long end) throws IOException {
            if (!chunk.hasRemaining()) {
                int size = (int) Math.min(chunk.capacity(), end - generated);
                chunk.clear();
                chunk.put(Io.pattern(generated, size)).flip();
                generated += size;
            }
            int n = channel.write(chunk);
            written += n;
            return n;
        }
    }
}
