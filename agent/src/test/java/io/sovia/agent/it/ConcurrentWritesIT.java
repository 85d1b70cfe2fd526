package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * One write at a time, as {@code WritableByteChannel} promises ("any other thread that attempts to initiate another
 * write operation will block until the first operation is complete") and the JDK's java.net streams do: a write
 * started while another thread's blocking write waits for room goes after every byte of that write, a gathering
 * write's buffers included. The peer reads nothing until both writers started, so the first write blocks.
 */
class ConcurrentWritesIT extends SoviaTestBase {
    /** More than any path buffers (see {@link BlockedWriteIT}), so the first write waits for room. */
    private static final int BIG = 32 * 1024 * 1024;
    private static final int SMALL = 100;
    /** Time for a write that does not wait its turn to slip in before the peer starts reading. */
    private static final long SLIP_MILLIS = 200;

    @TransportTest
    void aChannelWriteWaitsForTheBlockedWriteBeforeIt(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            assertSecondWaitsForFirst(() -> assertEquals(BIG, client.write(filled('a', BIG))),
                    () -> assertEquals(SMALL, client.write(filled('b', SMALL))),
                    into -> pair.accepted().read(ByteBuffer.wrap(into)));
        }
    }

    @TransportTest
    void aChannelWriteWaitsForEveryBufferOfABlockedGatheringWrite(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            SocketChannel client = pair.client();
            assertSecondWaitsForFirst(
                    () -> assertEquals(BIG, client.write(new ByteBuffer[] {filled('a', BIG / 2), filled('a', BIG / 2)})),
                    () -> assertEquals(SMALL, client.write(filled('b', SMALL))),
                    into -> pair.accepted().read(ByteBuffer.wrap(into)));
        }
    }

    @TransportTest
    void aStreamWriteWaitsForTheBlockedWriteBeforeIt(Transport transport) throws Exception {
        try (SocketPair pair = SocketPair.open(transport)) {
            OutputStream out = pair.client().getOutputStream();
            assertSecondWaitsForFirst(() -> out.write(filled('a', BIG).array()),
                    () -> out.write(filled('b', SMALL).array()), pair.accepted().getInputStream()::read);
        }
    }

    @TransportTest
    void aChannelsStreamWriteWaitsForTheBlockedWriteBeforeIt(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            OutputStream out = Channels.newOutputStream(pair.client());
            assertSecondWaitsForFirst(() -> out.write(filled('a', BIG).array()),
                    () -> out.write(filled('b', SMALL).array()), Channels.newInputStream(pair.accepted())::read);
        }
    }

    /** A write on a thread of its own; it asserts what it returns itself. */
    @FunctionalInterface
    private interface Write {
        void run() throws Exception;
    }

    /**
     * Starts {@code first} ('a' bytes, BIG of them), waits until it blocks for room, starts {@code second} ('b' bytes,
     * SMALL) and gives it time to slip in; only then the peer reads from {@code from}: every 'a' must come before the
     * first 'b'. Both writes must end without failing.
     */
    private static void assertSecondWaitsForFirst(Write first, Write second, Source from) throws Exception {
        Async<Void> firstWriter = Async.start("first writer", () -> {
            first.run();
            return null;
        });
        firstWriter.awaitBlockedIn("write");
        Async<Void> secondWriter = Async.start("second writer", () -> {
            second.run();
            return null;
        });
        Thread.sleep(SLIP_MILLIS);
        assertArrives(from, 'a', BIG, 'b', SMALL);
        firstWriter.get();
        secondWriter.get();
    }

    private static ByteBuffer filled(char c, int length) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) c);
        return ByteBuffer.wrap(bytes);
    }

    /** Where the peer reads from: a channel or a stream, as {@code InputStream.read(byte[])}. */
    @FunctionalInterface
    private interface Source {
        int read(byte[] into) throws IOException;
    }

    private static void assertArrives(Source from, char first, int firstLength, char second, int secondLength)
            throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long at = 0;
        long total = (long) firstLength + secondLength;
        while (at < total) {
            int n = from.read(chunk);
            if (n < 0) {
                fail("the stream ended after " + at + " of " + total + " bytes");
            }
            at = check(chunk, n, at, first, firstLength, second);
        }
    }

    /** Checks {@code n} bytes that arrived at stream offset {@code at}; returns the offset after them. */
    private static long check(byte[] bytes, int n, long at, char first, int firstLength, char second) {
        for (int i = 0; i < n; i++, at++) {
            char expected = at < firstLength ? first : second;
            if (bytes[i] != expected) {
                fail("byte " + at + " is '" + (char) bytes[i] + "', not '" + expected + "': the second write went in"
                        + " between the first one's bytes");
            }
        }
        return at;
    }
}
