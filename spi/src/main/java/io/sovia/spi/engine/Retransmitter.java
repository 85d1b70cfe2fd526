package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import java.net.SocketException;
import java.nio.ByteBuffer;

/**
 * Reliability on a lossy link for one {@link Session} (ESP, chapter 5): keeps sequenced frames until
 * acknowledged, samples the round trip of frames sent once (srtt = 7/8 srtt + 1/8 rtt, rto = 2 srtt
 * clamped), resends everything unacknowledged go-back-N when the oldest frame times out, doubling rto
 * each round, and probes a closed window so a lost window update cannot stall the stream. Not used on
 * reliable links, which pay nothing for it. Guarded by the session's lock.
 */
final class Retransmitter {
    private final SessionMachine session;
    private final SessionConfig config;
    private final RetransmitQueue queue;
    private long srtt;
    private long rto;
    private long deadline;
    private long probeDeadline;
    private int rounds;

    Retransmitter(SessionMachine session, SessionConfig config, int maxFrameLength) {
        this.session = session;
        this.config = config;
        this.queue = new RetransmitQueue(config.windowFrames(), maxFrameLength);
        this.rto = config.rtoInitialNanos();
    }

    /** Whether w frames are in flight, so no more may be sent. */
    boolean isFull() {
        return queue.isFull();
    }

    void sent(int seq, ByteBuffer frame, int offset, int length, long now) {
        queue.add(seq, frame, offset, length, now);
        if (deadline == 0) {
            deadline = now + rto;
        }
        probeDeadline = 0;
    }

    void onAck(int ack, long now) {
        long rtt = queue.acknowledge(ack, now);
        if (rtt >= 0) {
            srtt = srtt == 0 ? rtt : (7 * srtt + rtt) / 8;
            rto = Math.max(config.rtoMinNanos(), Math.min(config.rtoMaxNanos(), 2 * srtt));
        }
        if (rtt < 0) {
            // progress ends the backoff (as QUIC resets its PTO backoff on an ack): otherwise under
            // steady loss go-back-N never gets a Karn-clean sample and rto stays at rtoMaxNanos
            rto = srtt > 0 ? Math.max(config.rtoMinNanos(), Math.min(config.rtoMaxNanos(), 2 * srtt))
                    : config.rtoInitialNanos();
        }
        rounds = 0;
        deadline = queue.isEmpty() ? 0 : now + rto;
    }

    /** Credit ran out with data waiting: probe unless frames in flight will bring a fresh window. */
    void windowClosed(long now) {
        if (queue.isEmpty() && probeDeadline == 0) {
            probeDeadline = now + rto;
        }
    }

    void onTime(long now) {
        if (deadline != 0 && now - deadline >= 0) {
            if (++rounds > config.maxRetransmits()) {
                session.fail(new SocketException("Connection timed out"));
                return;
            }
            for (int i = 0; i < queue.size(); i++) {
                if (!session.resend(queue.buffer(), queue.offset(i), queue.length(i))) {
                    break;
                }
                queue.resent(i, now);
                EngineCounters.RETRANSMITS.increment();
            }
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
        deadline = 0;
        probeDeadline = 0;
    }
}
