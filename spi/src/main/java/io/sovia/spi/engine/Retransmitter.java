package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import java.net.SocketException;
import java.nio.ByteBuffer;

/**
 * Reliability on a lossy link for one {@link Session} (ESP, chapter 5): keeps sequenced frames until
 * acknowledged, samples the round trip of frames sent once (Jacobson's estimator, as TCP: rto = srtt + 4 rttvar,
 * clamped), resends the oldest frame when it times out, doubling rto each round, and then the others sent before the
 * timeout, two per ack (slow start), and probes a closed window so a lost window update cannot stall the stream. The receiver keeps frames that come after a gap
 * ({@link ReorderBuffer}) and says so on every frame it sends ({@link FrameFlyweight#FLAG_GAP}), which resends the
 * frame at the gap, a copy of it at most once a round trip, so a loss costs a round trip, not a timeout nor a
 * window. ESP's go-back-N with rto = 2 srtt made a receiver that paused for a time slice (a 2-core VM, the JIT at
 * work) look lossy: a whole window resent at every pause, whose copies filled the receiver's queue and were lost
 * in turn, and at 5% loss nearly every window of 256 frames lost one. Not used on reliable links, which pay nothing
 * for it. Guarded by the session's lock.
 */
final class Retransmitter {
    /**
     * Rounds without progress for a session the app closed (what is left is its last bytes and FIN): about 2 s at
     * {@code rto.max}, as TCP gives orphans fewer retries than open connections. A minute, as an open connection
     * gets for a peer that may only be paused, kept the buffers of every connection closed to a vanished peer:
     * a test opening many such ran out of direct memory.
     */
    private static final int ORPHAN_ROUNDS = 12;
    private final SessionMachine session;
    private final SessionConfig config;
    private final RetransmitQueue queue;
    private long srtt;
    private long rttvar;
    private long rto;
    private long deadline;
    private long probeDeadline;
    private int rounds;
    /** When the last timeout came, while frames sent before it are in flight (0: none are). */
    private long timedOutAt;

    /** @param inPlace whether frames are written into the queue and sent from there ({@link Link#sendsInPlace()}) */
    Retransmitter(SessionMachine session, SessionConfig config, int maxFrameLength, boolean inPlace) {
        this.session = session;
        this.config = config;
        this.queue = new RetransmitQueue(config.windowFrames(), maxFrameLength, inPlace);
        this.rto = config.rtoInitialNanos();
    }

    /** Whether w frames are in flight, so no more may be sent. */
    boolean isFull() {
        return queue.isFull();
    }

    /** Keeps a copy of the frame just sent. */
    void sent(int seq, ByteBuffer frame, int offset, int length, long now) {
        queue.add(seq, frame, offset, length, now);
        armTimer(now);
    }

    /** Where in {@link #store()} the next frame goes when it is written there and sent from there; check {@link #isFull()}. */
    int claim() {
        return queue.claim();
    }

    /** The frames kept, in place: valid until the next {@link #claim()}. */
    ByteBuffer store() {
        return queue.buffer();
    }

    /** The frame written at {@link #claim()} was sent from there. */
    void sentInPlace(int seq, int length, long now) {
        queue.keep(seq, length, now);
        armTimer(now);
    }

    private void armTimer(long now) {
        if (deadline == 0) {
            deadline = now + rto;
        }
        probeDeadline = 0;
    }

    void onAck(int ack, long now) {
        long rtt = queue.acknowledge(ack, now);
        if (rtt >= 0) {
            if (srtt == 0) {
                srtt = rtt;
                rttvar = rtt / 2;
            } else {
                rttvar = (3 * rttvar + Math.abs(srtt - rtt)) / 4;
                srtt = (7 * srtt + rtt) / 8;
            }
        }
        // progress also ends the backoff (as QUIC resets its PTO backoff on an ack): otherwise under
        // steady loss retransmission never gets a Karn-clean sample and rto stays at rtoMaxNanos
        rto = srtt > 0 ? Math.max(config.rtoMinNanos(), Math.min(config.rtoMaxNanos(), srtt + 4 * rttvar))
                : config.rtoInitialNanos();
        rounds = 0;
        deadline = queue.isEmpty() ? 0 : now + rto;
        if (timedOutAt != 0) {
            resendTimedOut(now);
        }
    }

    /**
     * After a timeout, each ack sends again two more of the frames sent before it, oldest first, as TCP's slow start
     * does after one: frames lost at the tail of a stream are followed by nothing that could report a gap.
     */
    private void resendTimedOut(long now) {
        int resent = 0;
        for (int i = 0; i < queue.size() && resent < 2; i++) {
            if (queue.sentAt(i) - timedOutAt < 0) {
                resend(i, now);
                resent++;
            }
        }
        if (resent == 0) {
            timedOutAt = 0;
        }
    }

    /**
     * The peer keeps frames beyond a gap at the oldest frame in flight, so frames sent after it arrived and it did
     * not: it is sent again at once (one copy too many when it was only overtaken), and again only once a round trip
     * has passed since its last copy left (that copy was lost as well). The receiver reports a gap once per batch of
     * frames it takes, not per frame, so counting reports as TCP counts duplicate acks waited for a timeout.
     */
    void onGap(long now) {
        if (queue.isEmpty() || (queue.wasResent(0) && now - queue.sentAt(0) <= (srtt > 0 ? srtt : rto))) {
            return;
        }
        resendOldest(now);
    }

    /**
     * The peer's SACK ({@link FrameFlyweight}): it holds the frames its bitmap of {@code length} bytes at {@code at}
     * marks past {@code ack}. Every frame it lacks below the newest it holds was overtaken, so each is sent again,
     * at most once a round trip. Told one gap at a time, a window that lost several frames (at 5% loss, a dozen of
     * 256) took a round trip per loss: a gibibyte through a lossy bridge ran at 3-13 MiB/s.
     */
    void onSack(int ack, ByteBuffer bits, int at, int length, long now) {
        if (queue.isEmpty() || queue.seq(0) != ack) {
            return;
        }
        int newest = -1;
        for (int i = Math.min(length * 8, queue.size() - 1) - 1; i >= 0; i--) {
            if (FrameFlyweight.sackHolds(bits, at, length, i)) {
                newest = i;
                break;
            }
        }
        long guard = srtt > 0 ? srtt : rto;
        // frame i of the queue is ack + i: bit i - 1
        for (int i = 0; i <= newest; i++) {
            if ((i == 0 || !FrameFlyweight.sackHolds(bits, at, length, i - 1))
                    && (!queue.wasResent(i) || now - queue.sentAt(i) > guard)) {
                resend(i, now);
            }
        }
    }

    private void resendOldest(long now) {
        resend(0, now);
    }

    private void resend(int i, long now) {
        if (session.resend(queue.buffer(), queue.offset(i), queue.length(i))) {
            queue.resent(i, now);
            EngineCounters.RETRANSMITS.increment();
        }
    }

    /** Credit ran out with data waiting: probe unless frames in flight will bring a fresh window. */
    void windowClosed(long now) {
        if (queue.isEmpty() && probeDeadline == 0) {
            probeDeadline = now + rto;
        }
    }

    void onTime(long now) {
        if (deadline != 0 && now - deadline >= 0) {
            if (++rounds > (session.isAppClosed() ? Math.min(ORPHAN_ROUNDS, config.maxRetransmits())
                    : config.maxRetransmits())) {
                session.fail(new SocketException("Connection timed out"));
                return;
            }
            // the oldest frame only, the others as the peer reports gaps (onGap): a receiver that only paused has the
            // rest, and a whole window sent again at each pause filled its queue with copies, which were lost in turn
            timedOutAt = now;
            resendOldest(now);
            rto = Math.min(config.rtoMaxNanos(), 2 * rto);
            deadline = now + rto;
        }
        if (probeDeadline != 0 && now - probeDeadline >= 0) {
            probeDeadline = session.waitsForCredit() ? now + rto : 0;
            if (probeDeadline != 0) {
                session.sendProbe();
            }
        }
    }

    long deadline() {
        return deadline == 0 ? probeDeadline : probeDeadline == 0 ? deadline : Math.min(deadline, probeDeadline);
    }

    void clear() {
        queue.clear();
        timedOutAt = 0;
        deadline = 0;
        probeDeadline = 0;
    }
}
