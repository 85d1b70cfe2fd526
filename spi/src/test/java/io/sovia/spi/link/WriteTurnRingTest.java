package io.sovia.spi.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sovia.spi.engine.Session;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A blocking write that took part of its bytes holds the session's write turn ({@link Session#writePart}): another
 * thread's write, transfer and writability wait until it ends, so nothing lands between its bytes; an ended write
 * ({@link Session#endWrite}) hands the turn on.
 */
@Timeout(20)
class WriteTurnRingTest {
    private static final int RING = 1 << 20;
    /** More than the window and the send buffer: the first step takes part of it. */
    private static final int BIG = 16 << 20;

    @TempDir
    Path dir;
    private Session client;
    private Session server;
    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @BeforeEach
    void connect() {
        RingSessions sessions = RingSessions.connected(RING);
        client = sessions.client();
        server = sessions.server();
    }

    @AfterEach
    void stop() {
        other.shutdownNow();
    }

    @Test
    void anotherThreadsWriteTransferAndWritabilityWaitForTheBlockedWrite() throws Exception {
        Path path = dir.resolve("file");
        Files.write(path, new byte[] {'f', 'f', 'f'});
        ByteBuffer big = filled('a', BIG);
        assertTrue(client.writePart(big, false) > 0 && big.hasRemaining(), "the first step takes part of it");
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
            assertEquals(0, onOther(() -> client.write(filled('b', 10))), "another thread's write takes nothing");
            assertEquals(0L, onOther(() -> client.writeFile(file, 0, 3, true)), "nor does its transfer");
            assertFalse(onOther(client::isWritable), "nor may it wait to be writable");
            ByteBuffer received = ByteBuffer.allocate(BIG + 10);
            for (int round = 0; big.hasRemaining() && round < 100_000; round++) {
                server.read(received);
                client.writePart(big, false);
            }
            assertFalse(big.hasRemaining(), "the blocked write ended");
            assertEquals(10, onOther(() -> client.write(filled('b', 10))), "then the other thread writes");
            for (int round = 0; received.hasRemaining() && round < 100_000; round++) {
                client.poll();
                server.read(received);
            }
            byte[] expected = new byte[BIG + 10];
            Arrays.fill(expected, 0, BIG, (byte) 'a');
            Arrays.fill(expected, BIG, BIG + 10, (byte) 'b');
            assertArrayEquals(expected, received.array());
        }
    }

    @Test
    void aWriteThatEndsEarlyHandsTheTurnOn() throws Exception {
        ByteBuffer big = filled('a', BIG);
        client.writePart(big, false);
        assertEquals(0, onOther(() -> client.write(filled('b', 10))));
        client.endWrite();
        server.read(ByteBuffer.allocate(RING));
        assertTrue(onOther(client::isWritable), "the turn is free again");
    }

    private <T> T onOther(Callable<T> call) throws Exception {
        return other.submit(call).get(10, TimeUnit.SECONDS);
    }

    private static ByteBuffer filled(char c, int length) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) c);
        return ByteBuffer.wrap(bytes);
    }
}
