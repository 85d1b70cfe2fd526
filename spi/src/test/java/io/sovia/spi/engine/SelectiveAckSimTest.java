package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Several frames of one window lost on a lossy link: the receiver's ACKs say which frames it holds past the gap
 * (SACK), so the sender sends each lost frame again once, all within about a round trip. Told only where the first
 * gap is, it learnt of one loss per round trip: a window of 256 frames at 5% loss lost about a dozen, and a gibibyte
 * through a lossy bridge crawled. Virtual time, so the figures are exact.
 */
class SelectiveAckSimTest {
    private static final int FRAME = 1500;
    private static final int FRAMES = 64;
    private static final long ONE_WAY = 1_000_000;
    private static final long ROUND_TRIP = 2 * ONE_WAY;
    /** Sequence numbers, counted from the first DATA frame, whose first copy is lost. */
    private static final Set<Integer> LOST = Set.of(5, 9, 14, 20, 27, 33, 41, 50);

    @Test
    @Timeout(value = 30, threadMode = SEPARATE_THREAD)
    void lossesInOneWindowAreSentAgainOnceEachWithinAboutARoundTrip() {
        Transfer clean = transfer(Set.of());
        Transfer lossy = transfer(LOST);
        assertEquals(0, clean.resent, "frames sent again on a link that lost nothing");
        assertEquals(LOST.size(), lossy.resent, "frames sent again for " + LOST.size() + " lost ones");
        long late = lossy.nanos - clean.nanos;
        assertTrue(late <= 2 * ROUND_TRIP, "the losses cost " + late / 1000 + " us against a clean transfer of "
                + clean.nanos / 1000 + " us; a round trip is " + ROUND_TRIP / 1000 + " us");
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void theBitmapMarksExactlyTheFramesHeldPastTheGap() {
        ReorderBuffer reorder = new ReorderBuffer(64, 100);
        ByteBuffer frame = ByteBuffer.allocate(100);
        int rcvNxt = Integer.MAX_VALUE - 3; // sequence numbers wrap
        for (int ahead : new int[] {1, 2, 8, 9, 63}) {
            reorder.keep(rcvNxt, rcvNxt + ahead, frame, 0, 40);
        }
        ByteBuffer bits = ByteBuffer.allocate(reorder.sackLength());
        reorder.writeSack(rcvNxt, bits, 0, bits.capacity());
        assertEquals(8, bits.capacity(), "63 frames past the gap take 8 bytes");
        for (int i = 0; i < 63; i++) {
            boolean held = i == 0 || i == 1 || i == 7 || i == 8 || i == 62;
            assertEquals(held, FrameFlyweight.sackHolds(bits, 0, bits.capacity(), i), "frame " + (i + 1) + " past the gap");
        }
    }

    private record Transfer(long nanos, long resent) {
    }

    /** 64 frames' worth one way, noDelay, the first copies of {@code lost} dropped: how long, and how many resent. */
    private static Transfer transfer(Set<Integer> lost) {
        SimNetwork net = new SimNetwork(7, false, FRAME);
        net.baseDelay = ONE_WAY;
        SessionConfig config = new SessionConfig(1 << 20, 1 << 20, 16, 200_000, 200_000, 2048, FRAMES, 20_000_000,
                500_000_000, 20_000_000, 40);
        SimScenario s = SimScenario.of(7, "sack", net, config, config);
        s.client.setNoDelay(true);
        s.handshake(false);
        Set<Integer> seen = new HashSet<>();
        int[] firstData = {Integer.MIN_VALUE};
        long[] resent = {0};
        net.dropIf = f -> {
            if (f[0] != FrameFlyweight.DATA) {
                return false;
            }
            int seq = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).getInt(16);
            if (firstData[0] == Integer.MIN_VALUE) {
                firstData[0] = seq;
            }
            if (!seen.add(seq)) {
                resent[0]++;
                return false;
            }
            return lost.contains(seq - firstData[0]);
        };
        long total = (long) FRAMES * (FRAME - FrameFlyweight.HEADER_LENGTH);
        s.b.reading = true;
        s.b.maxRead = 65536;
        s.b.expectIn = total;
        s.a.writeTotal = total;
        s.a.maxWrite = 65536;
        long start = net.now;
        s.a.writing = true;
        s.driver.runUntil("everything read", () -> s.b.read == total);
        return new Transfer(net.now - start, resent[0]);
    }
}
