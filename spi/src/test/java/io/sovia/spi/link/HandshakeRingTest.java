package io.sovia.spi.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sovia.spi.config.SessionConfig;
import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Link;
import io.sovia.spi.engine.Session;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which of a server's first frames ring a client asleep on a ring link. The SYN_ACK does not, unless the client's
 * writer waits for credit: the client reads and writes within early credit without it, and a client asleep for the
 * server's first answer used to be woken by the SYN_ACK alone and sleep again, two wake-ups per new connection of a
 * request/response app where TCP has one. The answer rings, as data always does.
 */
class HandshakeRingTest {
    private static final int RING = 1 << 16;
    private static final SessionConfig CONFIG = SoviaConfig.session();

    private final FrameRing toServer = FrameRing.allocate(RING);
    private final FrameRing toClient = FrameRing.allocate(RING);
    private final AtomicInteger clientWoken = new AtomicInteger();
    private final RingLink clientLink = new RingLink(toClient, toServer, () -> { }, () -> { });
    private final RingLink serverLink = new RingLink(toServer, toClient, clientWoken::incrementAndGet, () -> { });

    @Test
    @Timeout(10)
    void synAckLeavesASleepingReaderAsleepAndTheAnswerWakesIt() throws Exception {
        Session client = new Session(clientLink, CONFIG, System::nanoTime);
        client.connect();
        assertEquals(1, client.write(ByteBuffer.wrap(new byte[] {1})));
        clientLink.arm(Link.ARM_DOORBELL); // asleep for the answer
        Session server = new Session(serverLink, CONFIG, System::nanoTime);
        server.listen();
        server.poll();
        assertEquals(0, clientWoken.get(), "the SYN_ACK rang a client that waits only for data");
        ByteBuffer request = ByteBuffer.allocate(1);
        assertEquals(1, server.read(request));
        assertEquals(1, server.write(ByteBuffer.wrap(new byte[] {2})));
        assertEquals(1, clientWoken.get(), "the answer must ring the sleeping client");
    }

    @Test
    @Timeout(10)
    void synAckWakesAWriterThatWaitsForCredit() throws Exception {
        Session client = new Session(clientLink, CONFIG, System::nanoTime);
        client.connect();
        // more than the early credit every receiver grants: the rest waits for the SYN_ACK's window
        assertTrue(client.write(ByteBuffer.allocate(4 * SessionConfig.MIN_RECEIVE_BUFFER)) > SessionConfig.MIN_RECEIVE_BUFFER);
        clientLink.arm(Link.ARM_DOORBELL); // its writer asleep for credit
        Session server = new Session(serverLink, CONFIG, System::nanoTime);
        server.listen();
        server.poll();
        assertEquals(1, clientWoken.get(), "a writer waiting for credit must be woken by the SYN_ACK's window");
    }
}
