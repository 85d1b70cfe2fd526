package io.sovia.spi.engine;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import static io.sovia.spi.engine.FrameFlyweight.ACK;
import static io.sovia.spi.engine.FrameFlyweight.DATA;
import static io.sovia.spi.engine.FrameFlyweight.FIN;
import static io.sovia.spi.engine.FrameFlyweight.FIN_ACK;
import static io.sovia.spi.engine.FrameFlyweight.FLAG_PROBE;
import static io.sovia.spi.engine.FrameFlyweight.HEADER_LENGTH;
import static io.sovia.spi.engine.FrameFlyweight.RST;
import static io.sovia.spi.engine.FrameFlyweight.SYN;
import static io.sovia.spi.engine.FrameFlyweight.SYN_ACK;

/**
 * One connection of the SOVIA protocol over a {@link Link}: the one state machine of the engine.
 *
 * <p>Every operation is non-blocking and runs on the calling thread (SOVIA's single-threaded lesson:
 * thread hand-offs cost more than the work). Each first polls the link, so whoever touches the session
 * moves it forward: the app's reader or writer, a selector, or the service thread for timers. Waiting
 * is the caller's business ({@link SessionWaiter}).
 *
 * <p>States only move forward: the connection goes LISTEN or SYN_SENT, then ESTABLISHED; each direction
 * closes on its own (output: OPEN, FIN_PENDING, FIN_SENT, FIN_ACKED; input: OPEN, FIN_RECEIVED); a reset
 * or a dead peer ends everything with {@link #failure}.
 *
 * <p>Flow control is by byte credit: every frame carries the absolute stream offset up to which its
 * receiver may send. Acknowledgements ride on every frame; a separate ACK goes out after
 * {@code ackFrames} frames, when half the receive buffer was freed, or after {@code ackDelayNanos}.
 * Small writes are combined while earlier frames are unacknowledged (Nagle; off with TCP_NODELAY). On
 * an unreliable link sequenced frames are kept until acknowledged and resent go-back-N on timeout.
 *
 * <p>Threading: all mutable state is guarded by {@link #lock}.
 */
public final class Session {
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

    private final ReentrantLock lock = new ReentrantLock();
    private final Link link;
    private final SessionConfig config;
    private final LongSupplier clock;
    private final FrameFlyweight out = new FrameFlyweight();
    private final FrameFlyweight in = new FrameFlyweight();
    private final FrameHandler handler = this::onFrame;
    private final ByteRing received;
    private final ByteRing unsent;
    private final Retransmitter retransmitter;
    private final int maxPayload;
    private final long localToken;
    private final SessionWaiters waiters;

    private int state;
    private int outState;
    private int inState;
    private boolean inputShutdown;
    private boolean appClosed;
    /** The peer closed its end after its FIN: reads still drain, writes fail with "Broken pipe". */
    private boolean peerClosed;
    private IOException failure;
    private long peerToken;
    private boolean noDelay;

    /** Next sequence number to send; the highest the peer acknowledged; the next one expected from it. */
    private int sndNxt;
    private int peerAck;
    private int rcvNxt;
    private int finSeq;
    /** Ack state: sequenced frames received since we last sent anything, and the edge last sent. */
    private int unackedFrames;
    private long edgeSent;
    private boolean ackNow;
    /** Byte credit: data bytes framed so far, and the peer's window edge. */
    private long sent;
    private long sendEdge;
    /** Data bytes the app consumed (or that were discarded), which opens the window we advertise. */
    private long consumed;
    private long ackDeadline;
    private long nagleDeadline;
    private boolean ringPending;
    /** Told when a timer is set, so the service thread runs it; set once before the session is shared. */
    private Runnable onTimer = () -> { };
    private boolean timerScheduled;
    /** Registered with the waiters while written bytes wait to be framed, so the peer's next frame
     *  (a window update) gets them sent even if the app never calls again. */
    private final Runnable creditWaker = this::pushStalled;
    private boolean watchingCredit;
    /** Set while this thread runs a credit waker, so wakers never nest (A pushes B pushes A ...). */
    private static final ThreadLocal<Boolean> IN_WAKER = new ThreadLocal<>();
    /** During a read with nothing buffered, arriving data is copied straight here. */
    private ByteBuffer directTarget;
    private int directDelivered;

    public Session(Link link, SessionConfig config, LongSupplier clock) {
        this.link = link;
        this.config = config;
        this.clock = clock;
        this.received = new ByteRing(config.receiveBuffer());
        this.unsent = new ByteRing(config.sendBuffer());
        this.maxPayload = link.maxFrameLength() - HEADER_LENGTH;
        this.localToken = RANDOM.nextLong() | 1L;
        this.retransmitter = link.isReliable() ? null : new Retransmitter(this, config, link.maxFrameLength());
        this.sndNxt = RANDOM.nextInt();
        this.peerAck = sndNxt;
        this.waiters = new SessionWaiters(link);
        link.onRing(waiters::wakeAll);
    }

    /** Threads and selectors sleeping on this session. */
    public SessionWaiters waiters() {
        return waiters;
    }

    public Link link() {
        return link;
    }

    /** Sets what runs (under the lock, so it must not block) when a timer is set while none was pending. */
    public void onTimer(Runnable onTimer) {
        this.onTimer = onTimer;
    }

    /** The service thread took note of this session's timers; the next new timer tells it again. */
    public void timersSeen() {
        lock.lock();
        try {
            timerScheduled = false;
        } finally {
            lock.unlock();
        }
    }

    /** Client side: sends SYN. */
    public void connect() {
        lock.lock();
        try {
            state = SYN_SENT;
            int offset = claim(8);
            if (offset < 0) {
                fail(new SocketException("Connection refused: link full"));
                return;
            }
            out.wrap(link.sendBuffer(), offset).payloadToken(localToken);
            commit(offset, SYN, (byte) 0, 8);
        } finally {
            unlockAndRing();
        }
    }

    /** Server side: waits for the SYN, which the next poll answers. */
    public void listen() {
        lock.lock();
        try {
            state = LISTEN;
        } finally {
            lock.unlock();
        }
    }

    public void setNoDelay(boolean on) {
        lock.lock();
        try {
            noDelay = on;
            if (on) {
                flush(true);
            }
        } finally {
            unlockAndRing();
        }
    }

    public boolean noDelay() {
        lock.lock();
        try {
            return noDelay;
        } finally {
            lock.unlock();
        }
    }

    /** Sends everything buffered now, ignoring combining (exit flush). */
    public void flush() {
        lock.lock();
        try {
            pollLocked();
            flush(true);
        } finally {
            unlockAndRing();
        }
    }

    /** Processes arrived frames and due timers; returns whether any frame arrived. */
    public boolean poll() {
        lock.lock();
        try {
            return pollLocked();
        } finally {
            unlockAndRing();
        }
    }

    /**
     * Reads what is buffered into {@code dst}: bytes read, 0 if none now, -1 at end of stream.
     *
     * @throws SocketException "Connection reset" after a reset or the peer's death
     */
    public int read(ByteBuffer dst) throws IOException {
        lock.lock();
        try {
            flush(true);
            if (received.isEmpty() && dst.hasRemaining()) {
                directTarget = dst;
                directDelivered = 0;
                try {
                    pollLocked();
                } finally {
                    directTarget = null;
                }
            } else {
                pollLocked();
            }
            int n = directDelivered + received.take(dst);
            directDelivered = 0;
            return endRead(n);
        } finally {
            unlockAndRing();
        }
    }

    /** As {@link #read(ByteBuffer)}, into an array (stream adaptors). */
    public int read(byte[] b, int off, int len) throws IOException {
        lock.lock();
        try {
            flush(true);
            pollLocked();
            return endRead(received.take(b, off, len));
        } finally {
            unlockAndRing();
        }
    }

    private int endRead(int n) throws IOException {
        if (n > 0) {
            consumed(n);
            return n;
        }
        if (failure != null) {
            throw failure;
        }
        return inState == IN_FIN_RECEIVED || inputShutdown ? -1 : 0;
    }

    /** Bytes readable without waiting. */
    public int available() {
        lock.lock();
        try {
            pollLocked();
            return received.size();
        } finally {
            unlockAndRing();
        }
    }

    /**
     * Accepts bytes from {@code src}: framed at once as far as credit and link allow, the rest buffered.
     *
     * @return bytes accepted, 0 when the send buffer is full
     * @throws SocketException after a reset, or "Broken pipe" once the peer is gone
     */
    public int write(ByteBuffer src) throws IOException {
        lock.lock();
        try {
            pollLocked();
            if (failure != null) {
                throw failure;
            }
            if (outState != OUT_OPEN) {
                throw new SocketException("Socket output is shutdown");
            }
            if (peerClosed) {
                throw new SocketException("Broken pipe");
            }
            boolean large = src.remaining() >= config.smallWrite();
            flush(large);
            int total = 0;
            if (unsent.isEmpty() && state == ESTABLISHED && !holdSmall(large, src.remaining())) {
                total += frameDirect(src);
            }
            total += unsent.append(src, Integer.MAX_VALUE);
            flush(large);
            return total;
        } finally {
            unlockAndRing();
        }
    }

    /** Sends FIN once everything written before has been framed. */
    public void shutdownOutput() {
        lock.lock();
        try {
            if (outState == OUT_OPEN && failure == null) {
                outState = OUT_FIN_PENDING;
                flush(true);
            }
        } finally {
            unlockAndRing();
        }
    }

    /** Discards what arrives from now on; reads return end of stream. */
    public void shutdownInput() {
        lock.lock();
        try {
            inputShutdown = true;
            consumed(received.size());
            received.clear();
        } finally {
            unlockAndRing();
        }
    }

    /**
     * The app closed: as TCP, unread data resets the connection; otherwise written data and FIN still go
     * out ({@link #isFinished()} tells when the link may be released).
     */
    public void close() {
        lock.lock();
        try {
            pollLocked();
            if (!received.isEmpty()) {
                abortLocked();
            } else {
                appClosed = true;
                inputShutdown = true;
                if (outState == OUT_OPEN) {
                    outState = OUT_FIN_PENDING;
                }
                flush(true);
            }
        } finally {
            unlockAndRing();
        }
    }

    /** Resets the connection (SO_LINGER 0): RST to the peer, everything buffered dropped. */
    public void abort() {
        lock.lock();
        try {
            abortLocked();
        } finally {
            unlockAndRing();
        }
    }

    private void abortLocked() {
        appClosed = true;
        if (failure == null) {
            int offset = claim(0);
            if (offset >= 0) {
                commit(offset, RST, (byte) 0, 0);
            }
            fail(new SocketException("Socket closed"));
        }
    }

    /** Whether nothing more will happen on this session, so its link can be released. */
    public boolean isFinished() {
        lock.lock();
        try {
            pollLocked();
            return finishedLocked();
        } finally {
            unlockAndRing();
        }
    }

    private boolean finishedLocked() {
        if (failure != null) {
            return true;
        }
        boolean delivered = retransmitter == null ? outState >= OUT_FIN_SENT : outState == OUT_FIN_ACKED;
        return appClosed && (delivered || peerClosed);
    }

    /** Whether a read would not return 0 now. */
    public boolean isReadable() {
        lock.lock();
        try {
            pollLocked();
            return !received.isEmpty() || inState == IN_FIN_RECEIVED || inputShutdown || failure != null;
        } finally {
            unlockAndRing();
        }
    }

    /** Whether a write would not return 0 now. */
    public boolean isWritable() {
        lock.lock();
        try {
            pollLocked();
            return failure != null || outState != OUT_OPEN || unsent.free() > 0;
        } finally {
            unlockAndRing();
        }
    }

    /** Whether the handshake completed. */
    public boolean isEstablished() {
        lock.lock();
        try {
            return state == ESTABLISHED;
        } finally {
            lock.unlock();
        }
    }

    /** The earliest timer deadline in {@link #clock} nanos, or 0 if no timer runs. */
    public long nextDeadline() {
        lock.lock();
        try {
            long d = earliest(ackDeadline, nagleDeadline);
            return retransmitter == null ? d : earliest(d, retransmitter.deadline());
        } finally {
            lock.unlock();
        }
    }

    private static long earliest(long a, long b) {
        return a == 0 ? b : b == 0 ? a : Math.min(a, b);
    }

    /**
     * A credit waker: the ringing thread sends this session's stalled bytes itself (no thread hand-off),
     * unless someone holds the lock (the holder polls, and so flushes, before it lets go) or this thread
     * is already inside a waker; then the service thread does it.
     */
    private void pushStalled() {
        if (IN_WAKER.get() != null || lock.isHeldByCurrentThread() || !lock.tryLock()) {
            onTimer.run();
            return;
        }
        boolean ring;
        try {
            pollLocked();
        } finally {
            ring = ringPending;
            ringPending = false;
            lock.unlock();
        }
        if (ring) {
            IN_WAKER.set(Boolean.TRUE);
            try {
                link.ring();
            } finally {
                IN_WAKER.remove();
            }
        }
    }

    // ---- inside the lock ----

    private boolean pollLocked() {
        boolean any = link.poll(handler, Integer.MAX_VALUE) > 0;
        if (!any && failure == null && !link.isPeerAlive()) {
            peerGone();
        }
        if (failure != null) { // a failed session keeps no timers and sends nothing more
            ackNow = false;
            ackDeadline = 0;
            nagleDeadline = 0;
            return any;
        }
        long now = clock.getAsLong();
        if (retransmitter != null) {
            retransmitter.onTime(now);
        }
        if (nagleDeadline != 0 && now - nagleDeadline >= 0) {
            flush(true);
        }
        if (ackNow || (ackDeadline != 0 && now - ackDeadline >= 0)) {
            sendAck((byte) 0);
        }
        flush(false);
        return any;
    }

    private void peerGone() {
        if (inState == IN_FIN_RECEIVED) {
            peerClosed = true;
            unsent.clear();
        } else {
            // what arrived before the peer died stays readable: reads drain it, then throw
            fail(new SocketException("Connection reset"), false);
        }
    }

    /**
     * Leaves the lock, then rings the peer once for everything committed meanwhile: outside the lock,
     * so a waker the ring runs may take this session's lock itself.
     */
    private void unlockAndRing() {
        boolean ring = ringPending;
        ringPending = false;
        lock.unlock();
        if (ring) {
            link.ring();
        }
    }

    private void onFrame(ByteBuffer buffer, int offset, int length) {
        FrameFlyweight f = in.wrap(buffer, offset);
        if (length < HEADER_LENGTH || f.payloadLength() != length - HEADER_LENGTH) {
            EngineCounters.PROTOCOL_ERRORS.increment();
            return;
        }
        byte type = f.type();
        if ((type == SYN || type == SYN_ACK) && length < HEADER_LENGTH + 8) {
            EngineCounters.PROTOCOL_ERRORS.increment(); // no token payload to read
            return;
        }
        if (type == SYN ? state != LISTEN && f.payloadToken() != peerToken : f.token() != localToken) {
            EngineCounters.BAD_TOKENS.increment();
            return;
        }
        if (failure != null || (state == LISTEN && type != SYN) || (state == SYN_SENT && type != SYN_ACK)) {
            // nothing but the handshake is expected yet; the sender will repeat what matters
            EngineCounters.OUT_OF_ORDER.increment();
            return;
        }
        if (type != SYN) {
            onAck(f.ack(), f.window());
        }
        if (FrameFlyweight.isSequenced(type)) {
            if ((type == SYN && state == LISTEN) || (type == SYN_ACK && state == SYN_SENT)) {
                rcvNxt = f.seq();
            }
            if (f.seq() != rcvNxt) {
                EngineCounters.OUT_OF_ORDER.increment();
                ackNow = true;
                return;
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
                rcvNxt++;
                inState = IN_FIN_RECEIVED;
                sendControl(FIN_ACK);
                break;
            case FIN_ACK:
                if (outState == OUT_FIN_SENT && retransmitter == null) {
                    outState = OUT_FIN_ACKED;
                }
                break;
            case RST:
                fail(new SocketException("Connection reset"));
                break;
            case ACK:
                if ((f.flags() & FLAG_PROBE) != 0) {
                    ackNow = true;
                }
                break;
            default:
                EngineCounters.PROTOCOL_ERRORS.increment();
        }
    }

    private void onSyn(FrameFlyweight f) {
        peerToken = f.payloadToken();
        rcvNxt = f.seq() + 1;
        sendEdge = Math.max(sendEdge, f.window());
        if (state == LISTEN) {
            state = ESTABLISHED;
            int offset = claim(8);
            if (offset >= 0) {
                out.wrap(link.sendBuffer(), offset).payloadToken(localToken);
                commit(offset, SYN_ACK, (byte) 0, 8);
                if (retransmitter == null) {
                    peerAck = sndNxt; // a reliable link delivers it; nothing waits for its ack
                }
            }
        }
    }

    private void onSynAck(FrameFlyweight f) {
        if (state != SYN_SENT) {
            return;
        }
        peerToken = f.payloadToken();
        rcvNxt = f.seq() + 1;
        state = ESTABLISHED;
        ackNow = retransmitter != null;
    }

    private void onData(FrameFlyweight f, ByteBuffer buffer) {
        int length = f.payloadLength();
        if (appClosed) {
            rcvNxt++;
            abortLocked();
            return;
        }
        if (inputShutdown) {
            rcvNxt++;
            consumed(length);
            return;
        }
        int offset = f.payloadOffset();
        int direct = 0;
        if (directTarget != null && received.isEmpty()) {
            direct = Math.min(length, directTarget.remaining());
            directTarget.put(directTarget.position(), buffer, offset, direct);
            directTarget.position(directTarget.position() + direct);
            directDelivered += direct;
        }
        if (length - direct > received.free()) {
            // the peer overran the window we advertised
            EngineCounters.PROTOCOL_ERRORS.increment();
            if (retransmitter == null) {
                fail(new SocketException("Connection reset: peer overran the receive window"));
            }
            return;
        }
        received.appendAt(buffer, offset + direct, length - direct);
        rcvNxt++;
        if (++unackedFrames >= config.ackFrames()) {
            ackNow = true;
        } else if (ackDeadline == 0 && retransmitter != null) {
            // on a reliable link nothing waits for this ACK: a reader waits only after consuming
            // everything, which sends a window update, and a combining writer has its own timer
            ackDeadline = clock.getAsLong() + config.ackDelayNanos();
            timerSet();
        }
    }

    private void timerSet() {
        if (!timerScheduled) {
            timerScheduled = true;
            onTimer.run();
        }
    }

    private void onAck(int ack, long window) {
        if (ack - sndNxt > 0) {
            EngineCounters.PROTOCOL_ERRORS.increment();
            return;
        }
        if (ack - peerAck > 0) {
            peerAck = ack;
            if (retransmitter != null) {
                retransmitter.onAck(ack, clock.getAsLong());
            }
            if (outState == OUT_FIN_SENT && ack - finSeq > 0 && retransmitter != null) {
                outState = OUT_FIN_ACKED;
            }
        }
        if (window > sendEdge) {
            sendEdge = window;
        }
    }

    private void consumed(int n) {
        consumed += n;
        long edge = consumed + received.capacity();
        if (edge - edgeSent >= received.capacity() / 2) {
            ackNow = true;
        } else if (ackDeadline == 0 && edge != edgeSent && retransmitter != null) {
            ackDeadline = clock.getAsLong() + config.ackDelayNanos();
            timerSet();
        }
    }

    /** Nagle: hold a small write while sequenced frames are unacknowledged. */
    private boolean holdSmall(boolean large, int length) {
        return !noDelay && !large && length < maxPayload && peerAck != sndNxt;
    }

    private int credit() {
        if (state != ESTABLISHED || (retransmitter != null && retransmitter.isFull())) {
            return 0;
        }
        return (int) Math.min(maxPayload, sendEdge - sent);
    }

    private int frameDirect(ByteBuffer src) {
        int total = 0;
        while (src.hasRemaining()) {
            int n = Math.min(src.remaining(), credit());
            if (n <= 0) {
                break;
            }
            int offset = claim(n);
            if (offset < 0) {
                break;
            }
            link.sendBuffer().put(offset + HEADER_LENGTH, src, src.position(), n);
            src.position(src.position() + n);
            sent += n;
            commit(offset, DATA, (byte) 0, n);
            total += n;
        }
        return total;
    }

    /** Frames buffered bytes as credit and link allow; {@code force} overrides combining. */
    private void flush(boolean force) {
        if (failure == null) { // a failed session sends nothing more (no FIN after a reset)
            flushUnsent(force);
        }
        watchCredit();
    }

    private void flushUnsent(boolean force) {
        while (!unsent.isEmpty()) {
            if (!force && holdSmall(false, unsent.size())) {
                if (nagleDeadline == 0) {
                    nagleDeadline = clock.getAsLong() + config.nagleNanos();
                    timerSet();
                }
                return;
            }
            int n = Math.min(unsent.size(), credit());
            if (n <= 0) {
                if (retransmitter != null) {
                    retransmitter.windowClosed(clock.getAsLong());
                }
                nagleDeadline = 0; // waiting for credit now, not for the timer
                return;
            }
            int offset = claim(n);
            if (offset < 0) {
                return;
            }
            unsent.copyTo(link.sendBuffer(), offset + HEADER_LENGTH, n);
            unsent.skip(n);
            sent += n;
            commit(offset, DATA, (byte) 0, n);
        }
        nagleDeadline = 0;
        if (outState == OUT_FIN_PENDING && state == ESTABLISHED && (retransmitter == null || !retransmitter.isFull())) {
            int offset = claim(0);
            if (offset >= 0) {
                finSeq = sndNxt;
                outState = OUT_FIN_SENT;
                commit(offset, FIN, (byte) 0, 0);
            }
        }
    }

    /** Keeps the credit waker registered exactly while bytes or a FIN wait to go out. */
    private void watchCredit() {
        boolean waiting = failure == null && waitsForCredit();
        if (waiting != watchingCredit) {
            watchingCredit = waiting;
            if (waiting) {
                waiters.add(creditWaker);
            } else {
                waiters.remove(creditWaker);
            }
        }
    }

    void sendAck(byte flags) {
        int offset = claim(0);
        if (offset >= 0) {
            commit(offset, ACK, flags, 0);
        }
    }

    private void sendControl(byte type) {
        int offset = claim(0);
        if (offset >= 0) {
            commit(offset, type, (byte) 0, 0);
        }
    }

    private int claim(int payloadLength) {
        return link.claim(HEADER_LENGTH + payloadLength);
    }

    /** Writes the header of the frame claimed at {@code offset}, keeps it if it must be reliable, sends it. */
    private void commit(int offset, byte type, byte flags, int payloadLength) {
        boolean sequenced = FrameFlyweight.isSequenced(type);
        int seq = sequenced ? sndNxt++ : sndNxt;
        long edge = consumed + received.capacity();
        out.wrap(link.sendBuffer(), offset)
                .header(type, flags, payloadLength, type == SYN ? 0 : peerToken, seq, rcvNxt, edge);
        if (sequenced && retransmitter != null) {
            retransmitter.sent(seq, link.sendBuffer(), offset, HEADER_LENGTH + payloadLength, clock.getAsLong());
            timerSet();
        }
        link.commit(offset);
        edgeSent = edge;
        unackedFrames = 0;
        ackDeadline = 0;
        ackNow = false;
        ringPending = true;
    }

    /** Resends a kept frame with the current ack and window (called by the retransmitter). */
    boolean resend(ByteBuffer frame, int frameOffset, int length) {
        int offset = link.claim(length);
        if (offset < 0) {
            return false;
        }
        link.sendBuffer().put(offset, frame, frameOffset, length);
        long edge = consumed + received.capacity();
        out.wrap(link.sendBuffer(), offset).ackAndWindow(rcvNxt, edge);
        link.commit(offset);
        edgeSent = edge;
        ringPending = true;
        return true;
    }

    /** Whether data or FIN wait for credit, so a lost window update must be probed for. */
    boolean waitsForCredit() {
        return !unsent.isEmpty() || outState == OUT_FIN_PENDING;
    }

    void fail(IOException e) {
        fail(e, true);
    }

    /** Ends the connection with {@code e}; a reset drops unread data, a dead peer leaves it readable. */
    private void fail(IOException e, boolean dropReceived) {
        if (failure == null) {
            failure = e;
            EngineCounters.RESETS.increment();
            if (dropReceived) {
                received.clear();
            }
            unsent.clear();
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
