package io.sovia.spi.engine;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.config.SessionConfig;
import io.sovia.spi.jfr.SoviaEvents;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.SecureRandom;
import java.util.function.LongSupplier;

import static io.sovia.spi.engine.FrameFlyweight.ACK;
import static io.sovia.spi.engine.FrameFlyweight.DATA;
import static io.sovia.spi.engine.FrameFlyweight.FIN;
import static io.sovia.spi.engine.FrameFlyweight.FIN_ACK;
import static io.sovia.spi.engine.FrameFlyweight.FLAG_PROBE;
import static io.sovia.spi.engine.FrameFlyweight.FLAG_GAP;
import static io.sovia.spi.engine.FrameFlyweight.FLAG_URGENT;
import static io.sovia.spi.engine.FrameFlyweight.HEADER_LENGTH;
import static io.sovia.spi.engine.FrameFlyweight.RST;
import static io.sovia.spi.engine.FrameFlyweight.SYN;
import static io.sovia.spi.engine.FrameFlyweight.SYN_ACK;

/**
 * The connection state machine of one {@link Session}: its states, every transition, and the dispatch
 * of arriving frames. The data directions are the {@link SessionSender} and the {@link SessionReceiver};
 * the session around it adds the lock and the waking.
 *
 * <p>States only move forward: the connection goes LISTEN or SYN_SENT, then ESTABLISHED; each direction
 * closes on its own (output: OPEN, FIN_PENDING, FIN_SENT, FIN_ACKED; input: OPEN, FIN_RECEIVED); a reset
 * or a dead peer ends everything with {@link #failure}.
 *
 * <p>Guarded by the session's lock: every method runs under it.
 */
final class SessionMachine {
    static final int LISTEN = 0;
    static final int SYN_SENT = 1;
    static final int ESTABLISHED = 2;

    static final int OUT_OPEN = 0;
    static final int OUT_FIN_PENDING = 1;
    static final int OUT_FIN_SENT = 2;
    static final int OUT_FIN_ACKED = 3;

    static final int IN_OPEN = 0;
    static final int IN_FIN_RECEIVED = 1;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Link link;
    private final SessionConfig config;
    private final LongSupplier clock;
    private final FrameFlyweight in = new FrameFlyweight();
    private final FrameHandler handler = this::onFrame;
    /** How polling treats DATA on a reliable link: take it all, only what fits the reader's buffer, or none. */
    private static final int TAKE = 0;
    private static final int DIRECT_ONLY = 1;
    private static final int NONE = 2;
    /** How often a call looks at the clock for combining's deadline when no other timer runs. */
    static final int NAGLE_CHECK_CALLS = 64;
    /** Guarded by the session lock, like every field here. */
    private int dataMode = TAKE;
    /** Set when a poll left a DATA frame in the link. */
    private boolean dataLeft;
    /** Null on a reliable link. */
    private final Retransmitter retransmitter;
    /** Frames ahead of a gap, on lossy links only. */
    private final ReorderBuffer reorder;
    /** Whether frames kept in {@link #reorder} are being handled, so handling one does not start again. */
    private boolean reordering;
    private final SessionReceiver receiver;
    private final SessionSender sender;
    private final long localToken;

    /** Connection and direction states; guarded by the session's lock, like every field below. */
    private int state;
    private int outState;
    private int inState;
    private boolean inputShutdown;
    /** SO_OOBINLINE: urgent bytes are read in the stream; otherwise dropped, as Java cannot read them apart. */
    private boolean oobInline;
    private boolean appClosed;
    /** The peer closed its end after its FIN: reads still drain, writes fail with "Broken pipe". */
    private boolean peerClosed;
    /** This end reset the connection (abort, or data after close). */
    private boolean resetSent;
    /** Calls since the clock was last read for combining's deadline alone (see {@link #afterFrames}). */
    private int nagleSkips;
    /** Aborted before the handshake ended on a lossy link, with bytes written: the reset follows them then. */
    private boolean resetAfterHandshake;
    private IOException failure;
    private final ResetReport resetReport = new ResetReport();
    /** Bytes the app's writes took and its reads returned: the per-path counters read them unlocked. */
    private long bytesWritten;
    private long bytesRead;

    /**
     * @param timerSet    runs when a timer is set, so the service thread comes to run it
     * @param creditWaker registered with {@code waiters} while written bytes wait for credit
     */
    SessionMachine(Link link, SessionConfig config, LongSupplier clock, SessionWaiters waiters,
                   Runnable timerSet, Runnable creditWaker) {
        this.link = link;
        this.config = config;
        this.clock = clock;
        this.localToken = RANDOM.nextLong() | 1L;
        this.retransmitter = link.isReliable() ? null : new Retransmitter(this, config, link.maxFrameLength(),
                link.sendsInPlace());
        this.reorder = link.isReliable() ? null : new ReorderBuffer(config.windowFrames(), link.maxFrameLength());
        this.receiver = new SessionReceiver(config, clock, timerSet, retransmitter != null);
        this.sender = new SessionSender(link, config, clock, receiver, retransmitter, reorder, waiters, timerSet,
                creditWaker, RANDOM.nextInt());
    }

    void connect() {
        state = SYN_SENT;
        if (!sender.sendHandshake(SYN, localToken)) {
            fail(new SocketException("Connection refused: link full"));
        }
    }

    void listen() {
        state = LISTEN;
    }

    void setNoDelay(boolean on) {
        sender.noDelay(on);
        if (on) {
            flush(true);
        }
    }

    void flush() {
        poll();
        flush(true);
    }

    /** Has the link send what it holds; the session does before it lets go of its lock. */
    void flushLink() {
        sender.flushLink();
    }

    /**
     * The link is let go once the session is finished: what the link holds goes, then no timer may run. A FIN
     * sent to a peer already gone (it closed first and let its link go) waits for an ack that never comes; its
     * retransmission timer kept the session on the service's rounds, resent at every backoff into a closed link.
     */
    void released() {
        sender.flushLink();
        stopTimers();
        if (retransmitter != null) {
            retransmitter.clear();
        }
    }

    /** Cancels the delayed ACK, combining's deadline and the persist timer (the retransmitter's are its own). */
    private void stopTimers() {
        receiver.cancelAck();
        sender.cancelNagle();
        sender.stopProbing();
    }

    int read(ByteBuffer dst) throws IOException {
        flush(true);
        receiver.offerDirect(dst);
        try {
            // on a reliable link the ring is the receive buffer: data is taken only while it goes
            // straight into the reader's buffer, the rest stays in the ring (no extra copy)
            dataMode = DIRECT_ONLY;
            poll();
        } finally {
            dataMode = TAKE;
            receiver.endDirect();
        }
        return endRead(receiver.take(dst));
    }

    int read(byte[] b, int off, int len) throws IOException {
        flush(true);
        poll();
        return endRead(receiver.take(b, off, len));
    }

    private int endRead(int n) throws IOException {
        if (n > 0) {
            bytesRead += n;
            receiver.consumed(n);
            if (link.takeCreditWanted()) {
                receiver.ackAtOnce();
            }
            sendWindowUpdate();
            return n;
        }
        if (failure != null) {
            return resetReport.onRead(failure);
        }
        return inState == IN_FIN_RECEIVED || inputShutdown ? -1 : 0;
    }

    int available() {
        poll();
        return receiver.size();
    }

    int write(ByteBuffer src) throws IOException {
        poll(true);
        checkWritable();
        boolean large = src.remaining() >= config.smallWrite();
        if (large) {
            // what combining holds goes first, so this write may be framed straight from src; a small write
            // joins what it holds, and the flush below lets go of as much as may go
            flush(true);
        }
        int total = sender.accept(src, large, dataMayFlow());
        bytesWritten += total;
        flush(large);
        return total;
    }

    /** {@link #write} of a file's bytes, read into the frames themselves ({@link SessionSender#acceptFile}). */
    long writeFile(FileChannel file, long position, long count) throws IOException {
        poll(true);
        checkWritable();
        flush(true);
        long total = sender.acceptFile(file, position, count, dataMayFlow());
        bytesWritten += Math.max(total, 0);
        flush(true);
        return total;
    }

    void setOobInline(boolean on) {
        oobInline = on;
    }

    /** Sends TCP's urgent byte; false when it cannot go now (the caller waits until writable and retries). */
    boolean sendUrgentData(int data) throws IOException {
        poll();
        checkWritable();
        flush(true);
        return sender.sendUrgent((byte) data, dataMayFlow());
    }

    /** Throws what a write would throw now: the failure ({@link ResetReport}), or output shut down. */
    private void checkWritable() throws IOException {
        if (failure != null) {
            resetReport.onWrite(failure);
        }
        if (outState != OUT_OPEN) {
            throw new SocketException("Socket output is shutdown");
        }
        if (peerClosed) {
            throw new SocketException("Broken pipe");
        }
    }

    void shutdownOutput() {
        poll();
        if (outState == OUT_OPEN && failure == null) {
            outState = OUT_FIN_PENDING;
            flush(true);
        }
        takeLateHandshake();
    }

    void shutdownInput() {
        inputShutdown = true;
        receiver.discardBuffered();
    }

    void close() {
        poll();
        if (!receiver.isEmpty()) {
            abort();
        } else {
            appClosed = true;
            inputShutdown = true;
            if (outState == OUT_OPEN) {
                outState = OUT_FIN_PENDING;
            }
            flush(true);
            takeLateHandshake();
        }
    }

    /**
     * A FIN waiting for the handshake armed the credit waker (see {@link #watchCredit}), so the SYN_ACK rings for
     * it; one that arrived between the last poll and the arming rang nobody, and is taken here.
     */
    private void takeLateHandshake() {
        if (state == SYN_SENT && link.hasFrames()) {
            poll();
        }
    }

    void abort() {
        appClosed = true;
        if (failure == null) {
            // bytes combining still holds were written before the close: TCP would have sent them already
            flush(true);
            if (state == SYN_SENT && retransmitter != null && sender.hasUnsent()) {
                // so would TCP these, its handshake done before connect returned; a lossy link sends data only once
                // the SYN_ACK came (when the server accepts), so the reset waits for that, and follows them
                resetAfterHandshake = true;
                return;
            }
            sender.sendControl(RST);
            resetSent = true;
            fail(new SocketException("Socket closed"));
        }
    }

    /** Whether the app closed or aborted this session. */
    boolean isAppClosed() {
        return appClosed;
    }

    boolean isFinished() {
        poll();
        if (failure != null) {
            return true;
        }
        boolean delivered = retransmitter == null ? outState >= OUT_FIN_SENT : outState == OUT_FIN_ACKED;
        return appClosed && (delivered || peerClosed);
    }

    boolean isReadable() {
        if (readableNow()) {
            return true;
        }
        // control frames are taken; data on a reliable link is only noticed, for the read to take
        dataLeft = false;
        dataMode = NONE;
        try {
            poll();
        } finally {
            dataMode = TAKE;
        }
        return dataLeft || readableNow();
    }

    private boolean dropsUrgent(FrameFlyweight f) {
        return (f.flags() & FLAG_URGENT) != 0 && !oobInline;
    }

    /** Whether the DATA frame at hand stays in the link (reliable links only, see {@link #dataMode}). */
    private boolean leavesData() {
        if (retransmitter != null || dataMode == TAKE) {
            return false;
        }
        return dataMode == NONE || !receiver.takesDirect();
    }

    private boolean readableNow() {
        return !receiver.isEmpty() || inState == IN_FIN_RECEIVED || inputShutdown || failure != null;
    }

    boolean isWritable() {
        poll();
        return failure != null || outState != OUT_OPEN || sender.hasRoom();
    }

    boolean isEstablished() {
        return state == ESTABLISHED;
    }

    /** Bytes the app wrote so far; read unlocked, as {@link #activity()}. */
    long bytesWritten() {
        return bytesWritten;
    }

    /** Bytes the app read so far; read unlocked, as {@link #activity()}. */
    long bytesRead() {
        return bytesRead;
    }

    /**
     * What the connection is doing, read without the session's lock so that a look from another thread never
     * delays the data path: the values may be a moment old, which is all a listing needs.
     */
    SessionActivity activity() {
        return new SessionActivity(stateName(), sender.bytesFramed(), receiver.bytesConsumed(), sender.bytesUnsent(),
                receiver.size());
    }

    /** The state in the words of TCP's, as {@code ss} shows them. */
    private String stateName() {
        if (failure != null) {
            return "reset";
        }
        if (state != ESTABLISHED) {
            return state == SYN_SENT ? "syn-sent" : "syn-recv";
        }
        boolean outEnded = outState != OUT_OPEN;
        boolean inEnded = inState == IN_FIN_RECEIVED;
        if (outEnded) {
            return inEnded ? "closing" : "fin-wait";
        }
        return inEnded ? "close-wait" : "established";
    }

    long nextDeadline() {
        long d = earliest(earliest(receiver.ackDeadline(), sender.nagleDeadline()), sender.probeDeadline());
        return retransmitter == null ? d : earliest(d, retransmitter.deadline());
    }

    /** The earlier of two deadlines, 0 standing for none. */
    static long earliest(long a, long b) {
        return a == 0 ? b : b == 0 ? a : Math.min(a, b);
    }

    /** Whether frames were committed that the peer must be rung for; the caller rings, outside the lock. */
    boolean takeRing() {
        return sender.takeRing();
    }

    /**
     * Sends the window update a read made due at once: the writer may be waiting for that credit, and
     * this reader may make no further call for a long time. If the link is full, the service thread
     * retries.
     */
    private void sendWindowUpdate() {
        if (receiver.windowUpdateDue()) {
            sender.sendAck((byte) 0);
            if (receiver.windowUpdateDue()) {
                receiver.retryAck(clock.getAsLong());
            }
        }
    }

    /** Processes arrived frames and due timers; returns whether any frame arrived. */
    boolean poll() {
        return poll(false);
    }

    /** {@code writing}: a write calls, which may leave combining's deadline to a later call ({@link #afterFrames}). */
    private boolean poll(boolean writing) {
        return afterFrames(link.poll(handler, Integer.MAX_VALUE) > 0, writing);
    }

    /**
     * What follows taking frames: the peer's death once nothing of it is left, timers, sending; {@code writing} as
     * for {@link #poll(boolean)}.
     */
    private boolean afterFrames(boolean any, boolean writing) {
        // liveness first: a peer marks itself gone only after its last frame, so frames seen empty
        // after that are empty for good (the other order loses frames written between the two reads)
        if (failure == null && !link.isPeerAlive() && !link.hasFrames()) {
            peerGone();
        }
        if (failure != null) { // a failed session keeps no timers and sends nothing more
            stopTimers();
            return any;
        }
        // the clock only when a timer runs: this is on every read and write. A write looks at combining's deadline
        // alone at every NAGLE_CHECK_CALLS-th call: a writer of small pieces comes here at each, the clock read
        // was a third of its time, and the service thread flushes at that deadline anyway
        boolean timed = retransmitter != null || receiver.ackDeadline() != 0 || sender.probeDeadline() != 0;
        boolean nagle = sender.nagleDeadline() != 0
                && (timed || !writing || ++nagleSkips % NAGLE_CHECK_CALLS == 0);
        long now = timed || nagle ? clock.getAsLong() : 0;
        if (retransmitter != null) {
            retransmitter.onTime(now);
        }
        if (nagle && sender.nagleDue(now)) {
            flush(true);
        }
        if (sender.probeDue(now)) {
            if (waitsForCredit()) {
                sendProbe();
            } else {
                sender.stopProbing();
            }
        }
        if (receiver.ackDue(now)) {
            sender.sendAck((byte) 0);
        }
        if (!writing) { // a write flushes once it took its bytes: a look at combining per write, not two
            flush(false);
        }
        if (resetAfterHandshake && state == ESTABLISHED) {
            resetAfterHandshake = false;
            abort();
        }
        return any;
    }

    private void peerGone() {
        if (inState == IN_FIN_RECEIVED) {
            peerClosed = true;
            if (sender.hasUnsent()) {
                EngineCounters.UNSENT_DROPPED.increment();
            }
            sender.dropUnsent();
        } else {
            link.countPeerLoss();
            // what arrived before the peer died stays readable: reads drain it, then throw
            fail(new SocketException("Connection reset"), false);
        }
    }

    private boolean onFrame(ByteBuffer buffer, int offset, int length) {
        FrameFlyweight f = in.wrap(buffer, offset);
        if (length < HEADER_LENGTH || f.payloadLength() != length - HEADER_LENGTH) {
            return violation("a frame of " + length + " bytes declaring " + (length < HEADER_LENGTH ? "no header"
                    : f.payloadLength() + " bytes of payload"));
        }
        byte type = f.type();
        if ((type == SYN || type == SYN_ACK) && (length < HEADER_LENGTH + 8 || f.payloadToken() == 0)) {
            return violation("a " + FrameFlyweight.typeName(type) + " without a token");
        }
        // early frames (data, a window probe, the FIN after them, a reset: see dataMayFlow) were sent before the
        // client learnt our token; a reliable link carries only this connection's frames, so the token adds nothing
        // there. Only the handshake and FIN_ACK are always sent knowing the peer's token.
        boolean early = type != SYN && type != SYN_ACK && type != FIN_ACK && f.token() == 0 && retransmitter == null;
        if (type == SYN ? state != LISTEN && f.payloadToken() != sender.peerToken()
                : f.token() != localToken && !early) {
            EngineCounters.BAD_TOKENS.increment();
            // on a lossy link a stray frame of an older connection can come; on a ring only the peer writes
            return retransmitter != null || violation("a frame with a wrong token");
        }
        if (type == DATA && leavesData() && !dropsUrgent(f)) {
            dataLeft = true;
            return false;
        }
        if (failure != null && resetSent && retransmitter != null && type != RST) {
            // as TCP answers a segment for an aborted connection: the RST may have been lost (or never
            // fitted the link), and the peer would otherwise retransmit until it gives up
            sender.sendControl(RST);
        }
        if (failure != null || (state == LISTEN && type != SYN) || (state == SYN_SENT && type != SYN_ACK)) {
            // nothing but the handshake is expected yet; the sender will repeat what matters
            EngineCounters.OUT_OF_ORDER.increment();
            return true;
        }
        if (type != SYN && !early) { // early data acknowledges nothing yet
            sender.onAck(f.ack(), f.window(), retransmitter != null && (f.flags() & FLAG_GAP) != 0);
            if (type == ACK && (f.flags() & FLAG_GAP) != 0 && f.payloadLength() > 0) {
                sender.onSack(f.ack(), buffer, offset + HEADER_LENGTH, f.payloadLength());
            }
            if (outState == OUT_FIN_SENT && retransmitter != null && sender.finAcknowledged()) {
                outState = OUT_FIN_ACKED;
            }
        }
        if (FrameFlyweight.isSequenced(type)) {
            if ((type == SYN && state == LISTEN) || (type == SYN_ACK && state == SYN_SENT)) {
                receiver.expect(f.seq());
            }
            if (!receiver.isNext(f.seq())) {
                EngineCounters.OUT_OF_ORDER.increment();
                if (reorder != null) {
                    reorder.keep(receiver.rcvNxt(), f.seq(), buffer, offset, length);
                    receiver.gap(reorder.hasGap());
                }
                receiver.ackAtOnce();
                return true;
            }
        }
        switch (type) {
            case SYN:
                onSyn(f);
                break;
            case SYN_ACK:
                onSynAck(f);
                break;
            case DATA:
                onData(f, buffer);
                break;
            case FIN:
                receiver.advance();
                inState = IN_FIN_RECEIVED;
                sender.sendControl(FIN_ACK);
                break;
            case FIN_ACK:
                if (outState == OUT_FIN_SENT && retransmitter == null) {
                    outState = OUT_FIN_ACKED;
                }
                break;
            case RST:
                if (failure == null) {
                    resetReport.peerReset();
                }
                fail(new SocketException("Connection reset"), false);
                break;
            case ACK:
                if ((f.flags() & FLAG_PROBE) != 0) {
                    receiver.ackAtOnce();
                }
                break;
            default:
                return violation("a frame of unknown type " + type);
        }
        if (reorder != null && !reordering && FrameFlyweight.isSequenced(type)) {
            takeReordered();
        }
        return true;
    }

    /**
     * Handles the frames kept ahead of the gap that the frame just handled filled, in order; if another gap is left,
     * the peer learns of it at once.
     */
    private void takeReordered() {
        reordering = true;
        try {
            int at;
            while (failure == null && (at = reorder.take(receiver.rcvNxt())) >= 0) {
                onFrame(reorder.buffer(), at, reorder.takenLength());
            }
        } finally {
            reordering = false;
        }
        receiver.gap(reorder.hasGap());
        if (reorder.hasGap()) {
            receiver.ackAtOnce();
        }
    }

    /**
     * The peer sent what no Sovia engine sends. On a lossy link the frame may be damaged or stray, so it is
     * dropped and counted; on a reliable link only the peer writes, so the peer is broken or hostile and the
     * connection ends as TCP's would for a peer that breaks the protocol: reset, logged once for the connection.
     */
    private boolean violation(String what) {
        EngineCounters.PROTOCOL_ERRORS.increment();
        if (retransmitter == null && failure == null) {
            SoviaLog.warnCounted("protocol-violation", "the peer of a connection sent " + what
                    + "; the connection is reset", null);
            sender.sendControl(RST);
            resetSent = true;
            fail(new SocketException("Connection reset: the peer broke the protocol (" + what + ")"));
        }
        return true;
    }


    private void onSyn(FrameFlyweight f) {
        sender.peerToken(f.payloadToken());
        receiver.expect(f.seq() + 1);
        sender.widenWindow(f.window());
        if (state == LISTEN) {
            state = ESTABLISHED;
            if (sender.sendHandshake(SYN_ACK, localToken) && retransmitter == null) {
                sender.assumeAcknowledged();
            }
        }
    }

    private void onSynAck(FrameFlyweight f) {
        if (state != SYN_SENT) {
            return;
        }
        sender.peerToken(f.payloadToken());
        receiver.expect(f.seq() + 1);
        state = ESTABLISHED;
        if (retransmitter != null) {
            receiver.ackAtOnce(); // the peer keeps its SYN_ACK until this arrives
        }
    }

    private void onData(FrameFlyweight f, ByteBuffer buffer) {
        int length = f.payloadLength();
        if (appClosed) {
            receiver.advance();
            abort();
            return;
        }
        if (inputShutdown || dropsUrgent(f)) {
            receiver.discard(length);
            return;
        }
        if (!receiver.accept(buffer, f.payloadOffset(), length)) {
            // the peer overran the window we advertised
            EngineCounters.PROTOCOL_ERRORS.increment();
            if (retransmitter == null) {
                fail(new SocketException("Connection reset: peer overran the receive window"));
            }
        }
    }

    /** Frames buffered bytes, then a pending FIN, as credit and link allow; {@code force} overrides combining. */
    private void flush(boolean force) {
        if (failure == null // a failed session sends nothing more (no FIN after a reset)
                && sender.flushUnsent(force, dataMayFlow())
                && outState == OUT_FIN_PENDING && dataMayFlow() && !peerClosed && sender.sendFin()) {
            outState = OUT_FIN_SENT;
        }
        watchCredit();
    }

    /**
     * Whether DATA and the FIN after it may be sent: once established, and on a reliable link right after the
     * SYN too (early data, within the window every receiver grants before advertising one), since the ring
     * delivers them after the SYN that opens the connection. So a client that writes, closes and exits before
     * the server accepts leaves everything in the ring, as TCP leaves it in the kernel, and its exit does not
     * wait for the accept.
     */
    private boolean dataMayFlow() {
        return state == ESTABLISHED || (state == SYN_SENT && retransmitter == null);
    }

    /**
     * Keeps the credit waker registered while bytes or a FIN wait: for credit, or for the handshake to end (a
     * client that wrote and shut its output down before the server accepted may make no other call; the
     * SYN_ACK's ring must then bring someone to send them).
     */
    private void watchCredit() {
        boolean waiting = sender.isStalled() || state == SYN_SENT;
        sender.watchCredit(failure == null && waiting && waitsForCredit());
    }

    /** Whether data or FIN wait for credit, so a lost window update must be probed for. */
    boolean waitsForCredit() {
        return sender.hasUnsent() || outState == OUT_FIN_PENDING;
    }

    /** Resends a kept frame with the current ack and window (called by the retransmitter). */
    boolean resend(ByteBuffer frame, int frameOffset, int length) {
        return sender.resend(frame, frameOffset, length);
    }

    /**
     * Probes a closed window: the peer answers with its current window at once, and is nudged so that
     * it polls even if its app makes no call.
     */
    void sendProbe() {
        sender.sendAck(FLAG_PROBE);
        link.nudge();
    }

    void fail(IOException e) {
        fail(e, true);
    }

    /** Ends the connection with {@code e}; a reset drops unread data, a dead peer leaves it readable. */
    private void fail(IOException e, boolean dropReceived) {
        if (failure == null) {
            failure = e;
            EngineCounters.RESETS.increment();
            SoviaEvents.reset(e.getMessage());
            if (dropReceived) {
                receiver.clear();
            }
            sender.dropUnsent();
            if (retransmitter != null) {
                retransmitter.clear();
            }
            watchCredit();
        }
    }

    @Override
    public String toString() {
        return "Session[state=" + state + ", out=" + outState + ", in=" + inState
                + (failure == null ? "" : ", failed: " + failure.getMessage()) + ']';
    }
}
