package io.sovia.spi.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file sent through a session ({@link Session#writeFile}, what {@code transferTo} into a Sovia channel does) is read
 * straight into the ring's frames: one call takes as much as the credit allows, not a send buffer's worth of copies;
 * what follows a full window fills the send buffer, as the JDK's transfer fills the socket's, and goes with the
 * window update; a file that ends before the count given (shortened while it is sent) gives what it has, in order,
 * then its end.
 */
class FileFramesRingTest {
    private static final int RING = 1 << 20;

    @TempDir
    Path dir;
    private Session client;
    private Session server;
    private FileChannel file;

    @BeforeEach
    void connect() {
        RingSessions sessions = RingSessions.connected(RING);
        client = sessions.client();
        server = sessions.server();
    }

    @AfterEach
    void closeFile() throws IOException {
        if (file != null) {
            file.close();
        }
    }

    @Test
    @Timeout(20)
    void aFileLargerThanTheWindowArrivesWholeAndMostlyStraightIntoFrames() throws Exception {
        byte[] content = random(5 << 20, 11);
        open(content);
        ByteBuffer received = ByteBuffer.allocate(content.length);
        long at = 0;
        long first = client.writeFile(file, 0, content.length, false);
        assertTrue(first > 64 * 1024, "one call must frame what the window allows, not a few KiB into a buffer: " + first);
        at += first;
        for (int round = 0; at < content.length && round < 100_000; round++) {
            server.read(received);
            long n = client.writeFile(file, at, content.length - at, false);
            assertTrue(n >= 0, "the file ended early at " + at);
            at += n;
        }
        for (int round = 0; received.hasRemaining() && round < 100_000; round++) {
            client.poll();
            server.read(received);
        }
        assertEquals(content.length, at, "bytes of the file taken");
        assertArrayEquals(content, received.array());
    }

    @Test
    @Timeout(20)
    void aTransferWaitsOnlyOnceTheWindowAndTheSendBufferAreFull() throws Exception {
        byte[] content = random(8 << 20, 14);
        open(content);
        int sendBuffer = SoviaConfig.session().sendBuffer();
        long first = client.writeFile(file, 0, content.length, false);
        // as the JDK's transfer, which blocks only while the socket's send buffer is full
        assertTrue(first >= sendBuffer + 64 * 1024, "a reader that reads nothing yet must see the window and the whole "
                + sendBuffer + "-byte send buffer taken, not " + first + " bytes");
        assertEquals(0, client.writeFile(file, first, content.length - first, false), "then nothing more fits");
        ByteBuffer received = ByteBuffer.allocate(content.length);
        long at = first;
        for (int round = 0; received.hasRemaining() && round < 100_000; round++) {
            server.read(received);
            if (at < content.length) {
                at += client.writeFile(file, at, content.length - at, false);
            } else {
                client.poll();
            }
        }
        assertArrayEquals(content, received.array());
    }

    @Test
    @Timeout(20)
    void aFileShorterThanTheCountGivesWhatItHasThenItsEnd() throws Exception {
        byte[] content = random(100_000, 12);
        open(content);
        assertEquals(content.length, client.writeFile(file, 0, 1 << 20, false), "a file ending inside a frame");
        assertEquals(-1, client.writeFile(file, content.length, 1 << 20, false), "then the end of the file");
        byte[] more = random(3000, 13);
        assertEquals(more.length, client.write(ByteBuffer.wrap(more)), "writes go on after the short frame was given up");
        ByteBuffer received = ByteBuffer.allocate(content.length + more.length);
        for (int round = 0; received.hasRemaining() && round < 100_000; round++) {
            client.poll();
            server.read(received);
        }
        assertArrayEquals(content, Arrays.copyOf(received.array(), content.length));
        assertArrayEquals(more, Arrays.copyOfRange(received.array(), content.length, received.capacity()));
        // what the per-path stats read from the sessions
        assertEquals(received.capacity(), client.bytesWritten(), "bytes transferred and written; the file's end is none");
        assertEquals(received.capacity(), server.bytesRead());
    }

    private void open(byte[] content) throws IOException {
        Path path = dir.resolve("sent");
        Files.write(path, content);
        file = FileChannel.open(path, StandardOpenOption.READ);
    }

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }
}
