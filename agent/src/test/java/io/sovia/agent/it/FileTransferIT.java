package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * {@code FileChannel.transferTo} into and {@code transferFrom} out of a connected channel, as servers send and
 * receive files: the bytes and the counts the JDK reports, a region past the end of the file, a non-blocking
 * target that takes only part, and a closed channel.
 */
class FileTransferIT extends SoviaTestBase {
    private static final int SIZE = 3 * 1024 * 1024 + 123;

    @TransportTest
    void aFileSentWithTransferToArrivesWhole(Transport transport) throws Exception {
        Path file = file(SIZE);
        try (NioPair pair = NioPair.open(transport); FileChannel in = FileChannel.open(file)) {
            Async<byte[]> reader = Async.start("reader", () -> Io.readFully(pair.accepted(), SIZE - 1000));
            long sent = 0;
            while (sent < SIZE - 1000) {
                sent += in.transferTo(1000 + sent, SIZE - 1000 - sent, pair.client());
            }
            assertEquals(SIZE - 1000, sent);
            assertArrayEquals(Io.pattern(1000, SIZE - 1000), reader.get());
            assertEquals(0, in.transferTo(SIZE, 10, pair.client()), "nothing lies past the end of the file");
            assertEquals(0, in.position(), "transferTo leaves the file's position alone");
        }
    }

    @TransportTest
    void aFileReceivedWithTransferFromIsWritten(Transport transport) throws Exception {
        Path file = Files.createTempFile("sovia-transfer", ".bin");
        try (NioPair pair = NioPair.open(transport);
             FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE)) {
            Async<Void> writer = Async.start("writer", () -> {
                Io.writeFully(pair.client(), ByteBuffer.wrap(Io.pattern(0, SIZE)));
                return null;
            });
            out.write(ByteBuffer.allocate(77));
            long received = 0;
            while (received < SIZE) {
                long n = out.transferFrom(pair.accepted(), 77 + received, SIZE - received);
                assertTrue(n > 0, "a blocking source gives bytes until the count or its end");
                received += n;
            }
            writer.get();
            byte[] written = Files.readAllBytes(file);
            assertEquals(77 + SIZE, written.length);
            assertArrayEquals(Io.pattern(0, SIZE), Arrays.copyOfRange(written, 77, written.length));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A count past the end of a small file (one read, not mapped, its size not asked first) moves what there is. */
    @TransportTest
    void aCountPastTheEndOfASmallFileMovesWhatThereIs(Transport transport) throws Exception {
        Path file = file(100);
        try (NioPair pair = NioPair.open(transport); FileChannel in = FileChannel.open(file)) {
            assertEquals(60, in.transferTo(40, 1000, pair.client()));
            assertEquals(0, in.transferTo(100, 10, pair.client()), "nothing at the end of the file");
            assertEquals(0, in.transferTo(150, 10, pair.client()), "nothing past it");
            assertEquals(60, in.transferTo(40, Long.MAX_VALUE - 40, pair.client()), "a count up to Long.MAX_VALUE");
            assertArrayEquals(Io.pattern(40, 60), Io.readFully(pair.accepted(), 60));
            assertArrayEquals(Io.pattern(40, 60), Io.readFully(pair.accepted(), 60));
        }
    }

    /** Before JDK 21 nothing is transferred past the end of the file; from JDK 21 on the file grows (JDK-8303260). */
    @TransportTest
    void aTransferFromPastTheEndOfTheFileFollowsTheRunningJdk(Transport transport) throws Exception {
        Path file = Files.createTempFile("sovia-transfer", ".bin");
        try (NioPair pair = NioPair.open(transport);
             FileChannel out = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Io.writeFully(pair.client(), ByteBuffer.wrap(Io.pattern(0, 100)));
            long moved = out.transferFrom(pair.accepted(), 10, 100);
            if (Runtime.version().feature() < 21) {
                assertEquals(0, moved, "nothing lands past the end of the file");
                assertEquals(0, out.size());
            } else {
                assertEquals(100, moved, "a blocking source gives bytes until the count");
                assertEquals(110, out.size());
                ByteBuffer landed = ByteBuffer.allocate(100);
                out.read(landed, 10);
                assertArrayEquals(Io.pattern(0, 100), landed.array());
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A file server's small transfers, more of them than a process may hold mappings (65,530 by default). */
    @TransportTest
    void manySmallTransfersInARow(Transport transport) throws Exception {
        int transfers = 100_000;
        Path file = file(64);
        try (NioPair pair = NioPair.open(transport); FileChannel in = FileChannel.open(file)) {
            Async<byte[]> reader = Async.start("reader", () -> Io.readFully(pair.accepted(), transfers * 64));
            for (int i = 0; i < transfers; i++) {
                for (long at = 0; at < 64; ) {
                    at += in.transferTo(at, 64 - at, pair.client());
                }
            }
            byte[] received = reader.get();
            byte[] one = Io.pattern(0, 64);
            for (int i = 0; i < transfers; i++) {
                assertArrayEquals(one, Arrays.copyOfRange(received, i * 64, i * 64 + 64), "transfer " + i);
            }
        }
    }

    @TransportTest
    void aNonBlockingTargetTakesWhatFits(Transport transport) throws Exception {
        Path file = file(SIZE * 4);
        try (NioPair pair = NioPair.open(transport); FileChannel in = FileChannel.open(file)) {
            pair.client().configureBlocking(false);
            long first = in.transferTo(0, SIZE * 4L, pair.client());
            assertTrue(first > 0 && first < SIZE * 4L, () -> "a non-blocking transfer of " + SIZE * 4
                    + " bytes into an unread connection moved " + first);
            assertArrayEquals(Io.pattern(0, (int) first), Io.readFully(pair.accepted(), (int) first));
        }
    }

    @TransportTest
    void aClosedChannelIsRefusedAsTheJdkRefusesIt(Transport transport) throws Exception {
        Path file = file(1000);
        try (NioPair pair = NioPair.open(transport); FileChannel in = FileChannel.open(file)) {
            pair.client().close();
            assertThrows(ClosedChannelException.class, () -> in.transferTo(0, 1000, pair.client()));
            assertThrows(IllegalArgumentException.class, () -> in.transferTo(-1, 1000, pair.accepted()));
        }
    }

    private static Path file(int size) throws IOException {
        Path file = Files.createTempFile("sovia-transfer", ".bin");
        file.toFile().deleteOnExit();
        Files.write(file, Io.pattern(0, size));
        return file;
    }
}
