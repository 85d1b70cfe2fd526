package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import java.nio.ByteBuffer;
import java.util.function.LongSupplier;

/**
 * The inbound half of a {@link SessionMachine}: the next sequence number expected, the receive buffer of
 * bytes arrived but not yet read, and when to acknowledge. A window update is due once reads freed half
 * the buffer since the last advertised edge, on any link; a smaller one rides on the next frame sent,
 * or answers the peer's window probe. On an unreliable link, whose sender keeps
 * frames until acknowledged, an ACK is also due after {@code ackFrames} frames or {@code ackDelayNanos};
 * a reliable link needs no per-frame ACKs. Any frame the {@link SessionSender} sends carries the ack and
 * window, so it settles what was due. Guarded by the session's lock.
 */
final class SessionReceiver {
    private final SessionConfig config;
    private final LongSupplier clock;
    /** Tells the session a timer was set (a delayed ACK). */
    private final Runnable timerSet;
    /** Whether the peer keeps its frames until acknowledged, so a delayed ACK must not wait forever. */
    private final boolean lossy;
    private final ByteRing received;

    /** The next sequence number expected from the peer. Guarded by the session's lock. */
    private int rcvNxt;
    /** Whether frames beyond a gap at rcvNxt are kept (lossy links); set by the session after each change. */
    private boolean gap;
    /** Ack state: sequenced frames received since we last sent anything, and the edge last sent.
     *  Guarded by the session's lock. */
    private int unackedFrames;
    private long edgeSent;
    private boolean ackNow;
    private long ackDeadline;
    /** Data bytes the app consumed (or that were discarded), which opens the window we advertise.
     *  Guarded by the session's lock. */
    private long consumed;
    /** During a read with nothing buffered, arriving data is copied straight here. Guarded by the
     *  session's lock. */
    private ByteBuffer directTarget;
    private int directDelivered;

    SessionReceiver(SessionConfig config, LongSupplier clock, Runnable timerSet, boolean lossy) {
        this.config = config;
        this.clock = clock;
        this.timerSet = timerSet;
        this.lossy = lossy;
        this.received = new ByteRing(config.receiveBuffer());
    }

    int rcvNxt() {
        return rcvNxt;
    }

    /** The handshake tells where the peer's sequence starts. */
    /** Whether frames beyond a gap at {@link #rcvNxt()} wait for it: every frame sent says so. */
    boolean hasGap() {
        return gap;
    }

    void gap(boolean gap) {
        this.gap = gap;
    }

    void expect(int seq) {
        rcvNxt = seq;
    }

    boolean isNext(int seq) {
        return seq == rcvNxt;
    }

    /** Counts an in-order sequenced frame that brings nothing to keep. */
    void advance() {
        rcvNxt++;
    }

    /** Counts an in-order DATA frame whose {@code length} bytes nobody will read, reopening the window. */
    void discard(int length) {
        rcvNxt++;
        consumed(length);
    }

    /** The absolute stream offset up to which the peer may send. */
    long edge() {
        return consumed + received.capacity();
    }

    /** A frame carrying the current ack and window {@code edge} was sent: no separate ACK is owed. */
    void acknowledged(long edge) {
        edgeSent = edge;
        unackedFrames = 0;
        ackDeadline = 0;
        ackNow = false;
    }

    /** A resent frame advertised {@code edge}; its ack is as old as the frame, so the ack state stays. */
    void advertised(long edge) {
        edgeSent = edge;
    }

    void ackAtOnce() {
        ackNow = true;
    }

    /** Whether consumed bytes opened the window far enough to tell the peer now. */
    boolean windowUpdateDue() {
        return ackNow;
    }

    /** The update could not go now: a timer at {@code now} makes the service thread send it. */
    void retryAck(long now) {
        if (ackDeadline == 0) {
            ackDeadline = now;
            timerSet.run();
        }
    }

    boolean ackDue(long now) {
        return ackNow || (ackDeadline != 0 && now - ackDeadline >= 0);
    }

    long ackDeadline() {
        return ackDeadline;
    }

    void cancelAck() {
        ackNow = false;
        ackDeadline = 0;
    }

    /**
     * Keeps an in-order DATA payload: straight into the waiting reader's buffer as far as it fits, the
     * rest in the receive buffer. Returns false, counting nothing, when the peer overran the window.
     */
    boolean accept(ByteBuffer buffer, int offset, int length) {
        int direct = 0;
        if (directTarget != null && received.isEmpty()) {
            direct = Math.min(length, directTarget.remaining());
            directTarget.put(directTarget.position(), buffer, offset, direct);
            directTarget.position(directTarget.position() + direct);
            directDelivered += direct;
        }
        if (length - direct > received.free()) {
            return false;
        }
        received.appendAt(buffer, offset + direct, length - direct);
        rcvNxt++;
        // on a reliable link nothing waits for a per-frame ACK: the sender keeps no frames, and its
        // combining watches the link itself; window updates come from consumed()
        if (lossy) {
            if (++unackedFrames >= config.ackFrames()) {
                ackNow = true;
            } else if (ackDeadline == 0) {
                ackDeadline = clock.getAsLong() + config.ackDelayNanos();
                timerSet.run();
            }
        }
        return true;
    }

    /**
     * The app read {@code n} bytes (or they were dropped): the window opens, which may be worth an ACK.
     * Less than half the buffer waits for the next frame this end sends (the reply, in request/response
     * traffic); a writer blocked on it meanwhile probes, and the probe is answered at once.
     */
    void consumed(int n) {
        consumed += n;
        long edge = edge();
        if (edge - edgeSent >= received.capacity() / 2) {
            ackNow = true;
        } else if (ackDeadline == 0 && edge != edgeSent && lossy) {
            ackDeadline = clock.getAsLong() + config.ackDelayNanos();
            timerSet.run();
        }
    }

    /** Lets frames polled until {@link #endDirect()} fill {@code dst} directly, if nothing is buffered. */
    void offerDirect(ByteBuffer dst) {
        if (received.isEmpty() && dst.hasRemaining()) {
            directTarget = dst;
            directDelivered = 0;
        }
    }

    /** Whether arriving data would go straight into a reader's buffer now (nothing buffered, room left). */
    boolean takesDirect() {
        return directTarget != null && directTarget.hasRemaining() && received.isEmpty();
    }

    void endDirect() {
        directTarget = null;
    }

    /** Moves buffered bytes into {@code dst}; returns them plus those delivered directly meanwhile. */
    int take(ByteBuffer dst) {
        int n = directDelivered + received.take(dst);
        directDelivered = 0;
        return n;
    }

    int take(byte[] b, int off, int len) {
        return received.take(b, off, len);
    }

    int size() {
        return received.size();
    }

    /** Data bytes the app consumed so far; read unlocked, for display only ({@link SessionMachine#activity()}). */
    long bytesConsumed() {
        return consumed;
    }

    boolean isEmpty() {
        return received.isEmpty();
    }

    /** Drops what is buffered as if read, so the window reopens. */
    void discardBuffered() {
        consumed(received.size());
        received.clear();
    }

    /** Drops what is buffered without reopening the window: the connection is over. */
    void clear() {
        received.clear();
    }
}
