package io.sovia.spi.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sovia.spi.config.SessionConfig;
import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Link;
import io.sovia.spi.engine.Session;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Small writes (Nagle on) to a reader that sleeps between frames: once the writer had to wake it, more small writes
 * are combined for the combining span even though the reader took the frame, so a stream of them does not wake it
 * for every few kilobytes; a reader that answers counts as caught up at once, so request and response keep their
 * latency.
 */
class CombiningRingTest {
    private static final int RING = 1 << 16;
    private static final SessionConfig CONFIG = SoviaConfig.session();
    /**
     * The links' combining span, long enough that a cold JVM's first reads (interpreted, classes loading) fit in
     * half of it; the sessions keep the default.
     */
    private static final long SPAN_MICROS = 400_000;

    private final FrameRing toServer = FrameRing.allocate(RING);
    private final FrameRing toClient = FrameRing.allocate(RING);
    private final AtomicInteger serverWoken = new AtomicInteger();
    private RingLink clientLink;
    private RingLink serverLink;
    private Session client;
    private Session server;

    @BeforeEach
    void connect() throws Exception {
        String span = SoviaConfig.PREFIX + "nagle.micros";
        System.setProperty(span, Long.toString(SPAN_MICROS));
        try {
            clientLink = new RingLink(toClient, toServer, serverWoken::incrementAndGet, () -> { });
            serverLink = new RingLink(toServer, toClient, () -> { }, () -> { });
        } finally {
            System.clearProperty(span);
        }
        client = new Session(clientLink, CONFIG, System::nanoTime);
        server = new Session(serverLink, CONFIG, System::nanoTime);
        client.connect();
        server.listen();
        server.poll();
        client.poll();
    }

    @Test
    @Timeout(10)
    void smallWritesAfterWakingASleepingReaderAreCombined() throws Exception {
        serverLink.arm(Link.ARM_DOORBELL);
        assertEquals(64, client.write(ByteBuffer.wrap(bytes(0, 64))));
        assertEquals(1, serverWoken.get(), "the first write must wake the sleeping reader");
        assertEquals(64, readAll(64).length);
        serverLink.arm(Link.ARM_DOORBELL); // drained it, asleep again
        for (int i = 1; i <= 10; i++) {
            assertEquals(64, client.write(ByteBuffer.wrap(bytes(64 * i, 64))));
        }
        assertEquals(1, serverWoken.get(), "small writes right after a wake-up must be combined, not ring each");
        TimeUnit.MICROSECONDS.sleep(SPAN_MICROS / 2);
        assertEquals(64, client.write(ByteBuffer.wrap(bytes(64 * 11, 64))));
        assertEquals(2, serverWoken.get(), "after the combining span the held bytes go, in one frame");
        assertArrayEquals(bytes(64, 64 * 11), readAll(64 * 11));
    }

    @Test
    @Timeout(10)
    void aReaderThatAnswersIsCaughtUpAtOnce() throws Exception {
        serverLink.arm(Link.ARM_DOORBELL);
        assertEquals(64, client.write(ByteBuffer.wrap(bytes(0, 64))));
        assertEquals(64, readAll(64).length);
        assertEquals(1, server.write(ByteBuffer.wrap(new byte[] {7})));
        assertEquals(1, client.read(ByteBuffer.allocate(1)));
        serverLink.arm(Link.ARM_DOORBELL);
        assertEquals(64, client.write(ByteBuffer.wrap(bytes(64, 64))));
        assertEquals(2, serverWoken.get(), "the next request must go at once, waking the reader");
        assertArrayEquals(bytes(64, 64), readAll(64));
    }

    /** What the server reads until it has {@code length} bytes, the client polling for the window it opens. */
    private byte[] readAll(int length) throws Exception {
        ByteBuffer into = ByteBuffer.allocate(length);
        for (int tries = 0; into.hasRemaining() && tries < 100; tries++) {
            server.read(into);
            client.poll();
        }
        assertEquals(0, into.remaining(), "bytes missing at the reader");
        return into.array();
    }

    private static byte[] bytes(int from, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }
}
