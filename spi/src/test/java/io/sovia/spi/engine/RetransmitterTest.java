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
 * The {@link Retransmitter}'s timing, on times the test chooses (every call takes the time): Jacobson's
 * estimator (the first sample R gives srtt = R, rttvar = R/2; later ones rttvar = 3/4 rttvar + 1/4 |srtt - R|,
 * then srtt = 7/8 srtt + 1/8 R), the retransmission timeout derived from it (rto = srtt + 4 rttvar, clamped to
 * sovia.rto.min/max), its doubling per timeout round, the end of that backoff on progress, Karn's rule, the
 * timeout after maxRetransmits rounds, and the resend of a frame at a gap the peer reports.
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
    private final Retransmitter retransmitter = new Retransmitter(machine, config, FRAME, false);
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
        ack(1, T0 + 8 * MS); // frame 0: rtt 8 ms, srtt 8 ms, rttvar 4 ms
        expectRto(T0 + 8 * MS, 24 * MS, "after a first sample of 8 ms");
        send(2, T0 + 9 * MS);
        ack(2, T0 + 17 * MS); // frame 1: rtt 16 ms, rttvar 3/4 * 4 + 1/4 * 8 = 5 ms, srtt 7/8 * 8 + 1/8 * 16 = 9 ms
        expectRto(T0 + 17 * MS, 29 * MS, "after samples of 8 and 16 ms");
        send(3, T0 + 18 * MS);
        ack(3, T0 + 20 * MS); // frame 2: rtt 11 ms, rttvar 3/4 * 5 + 1/4 * 2 = 4.25 ms, srtt 7/8 * 9 + 1/8 * 11 = 9.25 ms
        expectRto(T0 + 20 * MS, 26_250_000, "after samples of 8, 16 and 11 ms");
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void rtoIsClampedToTheConfiguredMinimumAndMaximum() {
        send(0, T0);
        send(1, T0);
        ack(1, T0 + 100_000); // frame 0: rtt 0.1 ms, srtt 0.1 ms, rttvar 0.05 ms: 0.3 ms, below the minimum
        expectRto(T0 + 100_000, RTO_MIN, "srtt 0.1 ms");
        send(2, T0 + 100_000);
        // frame 1: rtt 8.1 ms; the clamp left the estimator alone: rttvar 3/4 * 0.05 + 1/4 * 8 = 2.0375 ms,
        // srtt 7/8 * 0.1 + 1/8 * 8.1 = 1.1 ms, rto 1.1 + 4 * 2.0375 = 9.25 ms
        ack(2, T0 + 8_100_000);
        expectRto(T0 + 8_100_000, 9_250_000, "srtt 1.1 ms");
        send(3, T0 + 8_100_000);
        ack(3, T0 + 800_100_000); // frame 2: rtt 800 ms, srtt 7/8 * 1.1 + 1/8 * 800 = 100.96 ms, over the maximum
        expectRto(T0 + 800_100_000, RTO_MAX, "srtt 101 ms");
    }

    /**
     * Each timeout round resends the oldest frame in flight and doubles rto up to the maximum; an ack that
     * advances ends the backoff, back to srtt + 4 rttvar, while Karn keeps the resent frame's round trip out of
     * srtt; rounds without progress end in "Connection timed out" after maxRetransmits.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void timeoutsBackOffUntilProgressOrTheConnectionTimesOut() throws IOException {
        send(0, T0);
        send(1, T0);
        ack(1, T0 + 5 * MS); // srtt 5 ms, rttvar 2.5 ms, rto 15 ms; frame 1 in flight since T0
        long deadline = T0 + 20 * MS;
        expectRto(T0 + 5 * MS, 15 * MS, "srtt 5 ms");
        time(deadline - 1);
        if (resent() != 0) {
            throw new AssertionError("resent before the deadline");
        }
        time(deadline);
        expectRto(deadline, 30 * MS, "after one timeout");
        time(deadline + 30 * MS);
        expectRto(deadline + 30 * MS, 60 * MS, "after two timeouts");
        if (resent() != 2) {
            throw new AssertionError("the frame in flight is resent once per round, got " + resent());
        }
        // the resent frame is acknowledged 3 ms after its last resend: no sample (Karn), but progress
        send(2, deadline + 31 * MS);
        ack(2, deadline + 33 * MS);
        expectRto(deadline + 33 * MS, 15 * MS, "progress after two timeouts: srtt still 5 ms, rttvar 2.5 ms");
        // frame 2: rtt 13 ms, rttvar 3/4 * 2.5 + 1/4 * 8 = 3.875 ms, srtt 7/8 * 5 + 1/8 * 13 = 6 ms; nothing in flight
        ack(3, deadline + 44 * MS);
        send(3, deadline + 44 * MS);
        expectRto(deadline + 44 * MS, 21_500_000, "srtt 6 ms, rttvar 3.875 ms");

        long round = deadline + 44 * MS + 21_500_000;
        long[] backoff = {43 * MS, 86 * MS, RTO_MAX, RTO_MAX}; // doublings are clamped
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

    /**
     * A frame that reports a gap resends the oldest frame in flight, the one at the gap, at once; a copy of it again
     * only once srtt has passed since the last copy left; the next gap goes once the ack reaches it.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void gapsResendTheOldestFrameAndItsCopiesAtMostOncePerRoundTrip() {
        send(0, T0);
        send(1, T0);
        send(2, T0);
        ack(1, T0 + MS); // frame 0: rtt 1 ms, srtt 1 ms; frames 1 and 2 in flight since T0
        retransmitter.onGap(T0 + MS + MS / 2);
        expectResent(1, "a gap at frame 1");
        retransmitter.onGap(T0 + 2 * MS);
        expectResent(1, "another report 0.5 ms after the copy left");
        retransmitter.onGap(T0 + 2 * MS + 600_000);
        expectResent(2, "a report 1.1 ms after the copy left: it was lost too");
        ack(2, T0 + 3 * MS); // frame 1 arrived: the gap moves to frame 2
        retransmitter.onGap(T0 + 3 * MS);
        expectResent(3, "the next gap, at frame 2");
        send(3, T0 + 3 * MS);
        ack(3, T0 + 3 * MS + MS / 2);
        retransmitter.onGap(T0 + 3 * MS + MS / 2);
        expectResent(4, "a gap at frame 3, sent 0.5 ms ago but never again: later frames overtook it");
    }

    private void expectResent(long frames, String when) {
        if (resent() != frames) {
            throw new AssertionError(when + ": " + resent() + " frames resent, expected " + frames);
        }
    }
}
