package io.sovia.spi.config;

/**
 * The engine's tunables for one session; {@link SoviaConfig#session()} builds it from {@code sovia.*}
 * properties, where the defaults and their reasons are documented.
 *
 * @param receiveBuffer  bytes a receiver buffers; the window it advertises
 * @param sendBuffer     bytes a sender accepts beyond the window (like SO_SNDBUF)
 * @param ackFrames      t: on an unreliable link, send an ACK after this many unacknowledged frames
 * @param ackDelayNanos  otherwise send it after this long (unreliable links only)
 * @param nagleNanos     small writes held by combining are sent after at most this long
 * @param smallWrite     writes below this many bytes are combined (SOVIA: 2 KB)
 * @param windowFrames   w: sequenced frames in flight on an unreliable link
 * @param rtoMinNanos    lower clamp of the retransmission timeout
 * @param rtoMaxNanos    upper clamp of the retransmission timeout
 * @param rtoInitialNanos timeout before the first round-trip sample
 * @param maxRetransmits retransmission rounds without progress before the connection is declared dead
 */
public record SessionConfig(int receiveBuffer, int sendBuffer, int ackFrames, long ackDelayNanos, long nagleNanos,
                            int smallWrite, int windowFrames, long rtoMinNanos, long rtoMaxNanos,
                            long rtoInitialNanos, int maxRetransmits) {
    /**
     * The smallest receive buffer, so also what every receiver takes before it has advertised a window:
     * on a reliable link a client sends this much with its SYN (early data), saving a round trip.
     */
    public static final int MIN_RECEIVE_BUFFER = 1024;
    /** The smallest send buffer. */
    public static final int MIN_SEND_BUFFER = 1024;

    public SessionConfig {
        if (receiveBuffer < MIN_RECEIVE_BUFFER || sendBuffer < MIN_SEND_BUFFER || ackFrames < 1 || windowFrames < 2 || smallWrite < 0
                || ackDelayNanos < 0 || nagleNanos < 0 || rtoMinNanos <= 0 || rtoMaxNanos < rtoMinNanos
                || rtoInitialNanos <= 0 || maxRetransmits < 1) {
            // the fields are not assigned yet in a compact constructor: name the parameters
            throw new IllegalArgumentException("invalid session configuration: receiveBuffer=" + receiveBuffer
                    + ", sendBuffer=" + sendBuffer + ", ackFrames=" + ackFrames + ", ackDelayNanos=" + ackDelayNanos
                    + ", nagleNanos=" + nagleNanos + ", smallWrite=" + smallWrite + ", windowFrames=" + windowFrames
                    + ", rtoMinNanos=" + rtoMinNanos + ", rtoMaxNanos=" + rtoMaxNanos + ", rtoInitialNanos="
                    + rtoInitialNanos + ", maxRetransmits=" + maxRetransmits);
        }
    }

    /** This configuration with other buffer sizes. */
    public SessionConfig withBuffers(int receive, int send) {
        return new SessionConfig(receive, send, ackFrames, ackDelayNanos, nagleNanos, smallWrite, windowFrames,
                rtoMinNanos, rtoMaxNanos, rtoInitialNanos, maxRetransmits);
    }
}
