package io.sovia.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Liveness probes between two JVMs' listeners, here two in one JVM on the loopback: a probe answered is alive however
 * late its prober looks, and one refused is dead.
 */
@Timeout(10)
class EthLivenessTest {
    private static final long TIMEOUT_NANOS = 500_000_000L;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /**
     * The answering JVM takes the probe and closes it before the prober's receiver thread gets a core to look: a
     * reset there read as refused, and buried a live peer with all its connections (VirtualThreadIT on eth, about
     * one run in twenty).
     */
    @Test
    void probeAnsweredBeforeItsProberLooksIsAlive() throws Exception {
        EthLiveness answerer = EthLiveness.open(LOOPBACK, TIMEOUT_NANOS);
        EthLiveness prober = EthLiveness.open(LOOPBACK, TIMEOUT_NANOS);
        EthPeer peer = peerListeningAt(answerer.port());

        EthLiveness.Verdict first = prober.check(peer, LOOPBACK, System.nanoTime(), fd -> { });
        if (first == EthLiveness.Verdict.PENDING) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (answerer.acceptAll() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            Thread.sleep(50); // the answerer's close reaches the prober's socket
            assertEquals(EthLiveness.Verdict.ALIVE, prober.check(peer, LOOPBACK, System.nanoTime(), fd -> { }));
        } else {
            assertEquals(EthLiveness.Verdict.ALIVE, first, "a connect done at once");
        }
    }

    /** A killed JVM's port refuses: dead at once, not after the timeout. */
    @Test
    void probeRefusedIsDead() throws Exception {
        EthLiveness prober = EthLiveness.open(LOOPBACK, 60_000_000_000L);
        EthPeer peer = peerListeningAt(closedPort());
        EthLiveness.Verdict verdict = prober.check(peer, LOOPBACK, System.nanoTime(), fd -> { });
        while (verdict == EthLiveness.Verdict.PENDING) {
            Thread.sleep(1);
            verdict = prober.check(peer, LOOPBACK, System.nanoTime(), fd -> { });
        }
        assertEquals(EthLiveness.Verdict.DEAD, verdict);
    }

    private static EthPeer peerListeningAt(int port) {
        EthPeer peer = new EthPeer(0x020000000001L, 7, System.nanoTime());
        peer.livenessPort = port;
        return peer;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            return socket.getLocalPort();
        }
    }
}
