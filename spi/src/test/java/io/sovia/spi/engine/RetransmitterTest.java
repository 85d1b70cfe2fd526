package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * The {@link Retransmitter}'s timing, on times the test chooses (every call takes the time): the
 * smoothed round trip (srtt = 7/8 srtt + 1/8 rtt, the first sample taken whole), the retransmission
 * timeout derived from it (rto = 2 srtt, clamped to sovia.rto.min/max), its doubling per timeout round,
 * the end of that backoff on progress, Karn's rule, and the timeout after maxRetransmits rounds.
 *
 * <p>rto is read from the deadline reported right after a frame is sent into an empty queue or an ack
 * leaves frames in flight: both are now + rto. The expected values are worked out by hand in the
 * comments. Times start just below Long.MAX_VALUE, so deadlines wrap around, as System.nanoTime() may.
 */
class RetransmitterTest {
    private static final long MS = 1_000_000;
    private static final long RTO_MIN = MS;
    private static final long RTO_MAX = 100 * MS;
    private static final long RTO_INITIAL = 20 * MS;
    private static final int MAX_RETRANSMITS = 4;
    private static final long T0 = Long.MAX_VALUE - 50 * MS;
    private static final int FRAME = 1500;

    private final SessionConfig config = new SessionConfig(64 * 1024, 64 * 1024, 4, MS, 200_000, 2048, 8,
            RTO_MIN, RTO_MAX, RTO_INITIAL, MAX_RETRANSMITS);
    private final SimNetwork net = new SimNetwork(1, false, FRAME);
    /** What the retransmitter resends through and fails; its link counts the resent frames. */
    private final SessionMachine machine = new SessionMachine(net.a, config, net.clock(), new SessionWaiters(net.a),
            () -> { }, () -> { });
    private final Retransmitter retransmitter = new Retransmitter(machine, config, FRAME);
    /** A one-byte DATA frame: what is kept does not matter here, only when it was sent. */
    private final ByteBuffer frame = ByteBuffer.allocate(FrameFlyweight.HEADER_LENGTH + 1).order(ByteOrder.LITTLE_ENDIAN);

    private void send(int seq, long now) {
        new FrameFlyweight().wrap(frame, 0).header(FrameFlyweight.DATA, (byte) 0, 1, 1, seq, 0, 0);
        retransmitter.sent(seq, frame, 0, frame.capacity(), now);
    }

    /** Acknowledges every frame before {@code seq}. */
    private void ack(int seq, long now) {
        net.now = now;
        retransmitter.onAck(seq, now);
    }

    private void time(long now) {
        net.now = now;
        retransmitter.onTime(now);
    }

    private void expectRto(long now, long rto, String why) {
        long got = retransmitter.deadline() - now;
        if (got != rto) {
            throw new AssertionError(why + ": rto " + got + " ns, expected " + rto);
        }
    }

    private long resent() {
        return net.a.sent(FrameFlyweight.DATA);
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void firstSampleSetsSrttLaterOnesWeighOneEighth() {
        send(0, T0);
        expectRto(T0, RTO_INITIAL, "before any sample");
        send(1, T0 + MS);
        ack(1, T0 + 8 * MS); // frame 0: rtt 8 ms, srtt 8 ms
        expectRto(T0 + 8 * MS, 16 * MS, "after a first sample of 8 ms");
        send(2, T0 + 9 * MS);
        ack(2, T0 + 17 * MS); // frame 1: rtt 16 ms, srtt 7/8 * 8 + 1/8 * 16 = 9 ms
        expectRto(T0 + 17 * MS, 18 * MS, "after samples of 8 and 16 ms");
        send(3, T0 + 18 * MS);
        ack(3, T0 + 20 * MS); // frame 2: rtt 11 ms, srtt 7/8 * 9 + 1/8 * 11 = 9.25 ms
        expectRto(T0 + 20 * MS, 18_500_000, "after samples of 8, 16 and 11 ms");
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void rtoIsClampedToTheConfiguredMinimumAndMaximum() {
        send(0, T0);
        send(1, T0);
        ack(1, T0 + 100_000); // frame 0: rtt 0.1 ms, srtt 0.1 ms, 2 srtt below the minimum
        expectRto(T0 + 100_000, RTO_MIN, "srtt 0.1 ms");
        send(2, T0 + 100_000);
        ack(2, T0 + 8_100_000); // frame 1: rtt 8.1 ms; the clamp left srtt alone: 7/8 * 0.1 + 1/8 * 8.1 = 1.1 ms
        expectRto(T0 + 8_100_000, 2_200_000, "srtt 1.1 ms");
        send(3, T0 + 8_100_000);
        ack(3, T0 + 800_100_000); // frame 2: rtt 800 ms, srtt 7/8 * 1.1 + 1/8 * 800 = 100.96 ms, 2 srtt over the maximum
        expectRto(T0 + 800_100_000, RTO_MAX, "srtt 101 ms");
    }

    /**
     * Each timeout round resends everything in flight and doubles rto up to the maximum; an ack that
     * advances ends the backoff, back to 2 srtt, while Karn keeps the resent frame's round trip out of
     * srtt; rounds without progress end in "Connection timed out" after maxRetransmits.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void timeoutsBackOffUntilProgressOrTheConnectionTimesOut() throws IOException {
        send(0, T0);
        send(1, T0);
        ack(1, T0 + 5 * MS); // srtt 5 ms, rto 10 ms; frame 1 in flight since T0
        long deadline = T0 + 15 * MS;
        expectRto(T0 + 5 * MS, 10 * MS, "srtt 5 ms");
        time(deadline - 1);
        if (resent() != 0) {
            throw new AssertionError("resent before the deadline");
        }
        time(deadline);
        expectRto(deadline, 20 * MS, "after one timeout");
        time(deadline + 20 * MS);
        expectRto(deadline + 20 * MS, 40 * MS, "after two timeouts");
        if (resent() != 2) {
            throw new AssertionError("the frame in flight is resent once per round, got " + resent());
        }
        // the resent frame is acknowledged 3 ms after its last resend: no sample (Karn), but progress
        send(2, deadline + 21 * MS);
        ack(2, deadline + 23 * MS);
        expectRto(deadline + 23 * MS, 10 * MS, "progress after two timeouts: 2 srtt, srtt still 5 ms");
        ack(3, deadline + 34 * MS); // frame 2: rtt 13 ms, srtt 7/8 * 5 + 1/8 * 13 = 6 ms, nothing left in flight
        send(3, deadline + 34 * MS);
        expectRto(deadline + 34 * MS, 12 * MS, "srtt 6 ms");

        long round = deadline + 46 * MS;
        long[] backoff = {24 * MS, 48 * MS, 96 * MS, RTO_MAX}; // the last doubling is clamped
        for (int i = 0; i < MAX_RETRANSMITS; i++) {
            time(round);
            expectRto(round, backoff[i], "after " + (i + 1) + " rounds without progress");
            round += backoff[i];
        }
        time(round - 1);
        machine.read(ByteBuffer.allocate(1)); // not timed out yet
        time(round);
        try {
            machine.read(ByteBuffer.allocate(1));
            throw new AssertionError("no timeout after " + MAX_RETRANSMITS + " rounds without progress");
        } catch (SocketException e) {
            if (!"Connection timed out".equals(e.getMessage())) {
                throw new AssertionError("expected \"Connection timed out\", got " + e, e);
            }
        }
        if (resent() != 2 + MAX_RETRANSMITS) {
            throw new AssertionError("expected " + (2 + MAX_RETRANSMITS) + " resends in all, got " + resent());
        }
    }
}
