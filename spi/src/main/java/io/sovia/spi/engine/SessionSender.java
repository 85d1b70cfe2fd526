package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.function.LongSupplier;

import static io.sovia.spi.engine.FrameFlyweight.ACK;
import static io.sovia.spi.engine.FrameFlyweight.DATA;
import static io.sovia.spi.engine.FrameFlyweight.FIN;
import static io.sovia.spi.engine.FrameFlyweight.FLAG_GAP;
import static io.sovia.spi.engine.FrameFlyweight.HEADER_LENGTH;
import static io.sovia.spi.engine.FrameFlyweight.SYN;
import static io.sovia.spi.engine.FrameFlyweight.SYN_ACK;

/**
 * The outbound half of a {@link SessionMachine}: sequence numbers, byte credit, the send buffer of bytes
 * written but not yet framed, combining (Nagle), and the emission of every frame, each carrying the
 * {@link SessionReceiver}'s ack and window. It decides how, never whether: the machine's states say when
 * data may flow and when a FIN is due. Guarded by the session's lock.
 */
final class SessionSender {
    private final Link link;
    private final SessionConfig config;
    private final LongSupplier clock;
    private final SessionReceiver receiver;
    /** Null on a reliable link. */
    private final Retransmitter retransmitter;
    /** The receiver's frames past a gap, which ACKs tell of; null on a reliable link. */
    private final ReorderBuffer reorder;
    private final SessionWaiters waiters;
    /** Tells the session a timer was set (nagle, or a frame kept for retransmission). */
    private final Runnable timerSet;
    /** Registered with the waiters while written bytes wait to be framed, so the peer's next frame
     *  (a window update) gets them sent even if the app never calls again. */
    private final Runnable creditWaker;
    private final FrameFlyweight out = new FrameFlyweight();
    private final ByteRing unsent;
    private final int maxPayload;
    /**
     * Whether the last flush stopped for want of credit or link space (not because combining held the
     * bytes): only then must the peer's next frame bring someone to send them.
     */
    private boolean stalled;
    /** Combined bytes go out once this many are waiting: a full frame, or half the send buffer if smaller. */
    private final int combineLimit;

    /** Stamped on every frame but SYN; learnt from the peer's SYN or SYN_ACK. Guarded by the session's lock. */
    private long peerToken;
    /** Guarded by the session's lock. */
    private boolean noDelay;
    /** Next sequence number to send; the highest the peer acknowledged; the FIN's. Guarded by the session's lock. */
    private int sndNxt;
    private int peerAck;
    private int finSeq;
    /** Byte credit: data bytes framed so far, and the peer's window edge. Guarded by the session's lock. */
    private long sent;
    private long sendEdge;
    /** Guarded by the session's lock. */
    private long nagleDeadline;
    /** Frames were committed that the peer has not been rung for yet. Guarded by the session's lock. */
    private boolean ringPending;
    /** Guarded by the session's lock. */
    private boolean watchingCredit;
    /** Null on an unreliable link, where the retransmitter probes. */
    private final CreditProbe creditProbe;
    /** Whether sequenced frames are written into the retransmitter's store and sent from there ({@link Link#sendsInPlace()}). */
    private final boolean inPlace;
    /** The buffer the open claim is in, and whether it is the retransmitter's store. Guarded by the session's lock. */
    private ByteBuffer claimedIn;
    private boolean claimedKept;
    /**
     * Kept frames were handed to the link in place since it last sent what it holds: an ack must not free their slots
     * for new frames before they went, or the link would send a new frame's bytes under an old frame's length.
     * Guarded by the session's lock.
     */
    private boolean inPlaceUnsent;

    SessionSender(Link link, SessionConfig config, LongSupplier clock, SessionReceiver receiver,
                  Retransmitter retransmitter, ReorderBuffer reorder, SessionWaiters waiters, Runnable timerSet,
                  Runnable creditWaker, int initialSeq) {
        this.link = link;
        this.config = config;
        this.clock = clock;
        this.receiver = receiver;
        this.retransmitter = retransmitter;
        this.reorder = reorder;
        this.waiters = waiters;
        this.timerSet = timerSet;
        this.creditWaker = creditWaker;
        this.unsent = new ByteRing(config.sendBuffer());
        this.creditProbe = retransmitter == null ? new CreditProbe(config) : null;
        this.inPlace = retransmitter != null && link.sendsInPlace();
        this.maxPayload = link.maxFrameLength() - HEADER_LENGTH;
        this.combineLimit = Math.min(maxPayload, config.sendBuffer() / 2);
        this.sndNxt = initialSeq;
        this.peerAck = initialSeq;
        // early data on a reliable link (SessionMachine.dataMayFlow); a lossy link waits for the SYN_ACK
        this.sendEdge = retransmitter == null ? SessionConfig.MIN_RECEIVE_BUFFER : 0;
    }

    long peerToken() {
        return peerToken;
    }

    void peerToken(long token) {
        peerToken = token;
    }

    void noDelay(boolean on) {
        noDelay = on;
    }

    /** Whether the send buffer has room, so a write would accept bytes. */
    boolean hasRoom() {
        return unsent.free() > 0;
    }

    /** Data bytes framed so far; read unlocked, for display only ({@link SessionMachine#activity()}). */
    long bytesFramed() {
        return sent;
    }

    /** Bytes written and not yet framed: the send queue. Unlocked, for display only. */
    int bytesUnsent() {
        return unsent.size();
    }

    boolean hasUnsent() {
        return !unsent.isEmpty();
    }

    void dropUnsent() {
        unsent.clear();
    }

    /** Whether a ring is owed for frames committed since the last call; the caller rings. */
    boolean takeRing() {
        boolean ring = ringPending;
        ringPending = false;
        return ring;
    }

    /** Sends SYN or SYN_ACK, carrying {@code localToken}; false when the link is full. */
    boolean sendHandshake(byte type, long localToken) {
        int offset = claim(type, 8);
        if (offset < 0) {
            return false;
        }
        out.wrap(claimedIn, offset).payloadToken(localToken);
        boolean owed = ringPending;
        commit(offset, type, (byte) 0, 8);
        if (type == SYN_ACK && retransmitter == null && !link.peerWaitsForCredit()) {
            // on a reliable link a client reads and writes (within early credit) without the SYN_ACK: a client asleep
            // for the server's first answer, woken to find only this, cost every new connection a wake-up
            ringPending = owed;
        }
        return true;
    }

    /** Takes everything sent as acknowledged: a reliable link delivers it and nothing waits for its ack. */
    void assumeAcknowledged() {
        peerAck = sndNxt;
    }

    /**
     * The peer acknowledged up to {@code ack} and opened its window to {@code window}; {@code gap}: it keeps frames
     * beyond a gap at {@code ack} ({@link FrameFlyweight#FLAG_GAP}).
     */
    void onAck(int ack, long window, boolean gap) {
        if (ack - sndNxt > 0) {
            EngineCounters.PROTOCOL_ERRORS.increment();
            return;
        }
        if (ack - peerAck > 0) {
            peerAck = ack;
            if (retransmitter != null) {
                if (inPlaceUnsent) {
                    flushLink();
                }
                retransmitter.onAck(ack, clock.getAsLong());
            }
        }
        if (gap && ack == peerAck && retransmitter != null) {
            retransmitter.onGap(clock.getAsLong());
        }
        widenWindow(window);
    }

    /** The peer's ACK told which frames past its gap at {@code ack} it holds: a bitmap of {@code length} bytes. */
    void onSack(int ack, ByteBuffer bits, int at, int length) {
        if (ack == peerAck && retransmitter != null) {
            retransmitter.onSack(ack, bits, at, length, clock.getAsLong());
        }
    }

    void widenWindow(long window) {
        if (window > sendEdge) {
            sendEdge = window;
        }
    }

    /** Whether the peer acknowledged the FIN (only meaningful once it was sent). */
    boolean finAcknowledged() {
        return peerAck - finSeq > 0;
    }

    /**
     * Takes bytes from {@code src}: framed at once when nothing is buffered ahead of them and combining
     * does not hold them, the rest buffered; returns how many.
     */
    int accept(ByteBuffer src, boolean large, boolean established) {
        int total = 0;
        if (unsent.isEmpty() && established && !holdSmall(large, src.remaining())) {
            total += frameDirect(src);
        }
        return total + unsent.append(src, Integer.MAX_VALUE);
    }

    /**
     * Takes up to {@code count} bytes of {@code file} from {@code position}: read straight into frames while nothing is
     * buffered ahead of them and credit and link allow (one copy, from the page cache into the link), the rest into
     * the send buffer as far as it has room, where a window update gets them framed as it gets written bytes framed.
     * Returns how many, or -1 when the file ends at {@code position}.
     */
    long acceptFile(FileChannel file, long position, long count, boolean established) throws IOException {
        long total = 0;
        if (unsent.isEmpty() && established) {
            total = frameFile(file, position, count);
        }
        while (total < count) {
            // a round per contiguous piece of the buffer (up to its end, then from its start) and per short read
            int read = unsent.appendFrom(file, position + total, (int) Math.min(count - total, Integer.MAX_VALUE));
            if (read < 0 && total == 0) {
                return -1;
            }
            if (read <= 0) {
                break;
            }
            total += read;
        }
        return total;
    }

    /** Frames bytes of {@code file} read into the claimed frames themselves, as {@link #frameDirect} frames a buffer's. */
    private long frameFile(FileChannel file, long position, long count) throws IOException {
        long total = 0;
        while (total < count) {
            // no larger than the send buffer, which takes what a short read found
            int n = (int) Math.min(Math.min(count - total, credit(true)), unsent.free());
            if (n <= 0) {
                break;
            }
            int offset = claim(DATA, n);
            if (offset < 0) {
                break;
            }
            int payload = offset + HEADER_LENGTH;
            int read;
            try {
                read = readFully(file, claimedIn.slice(payload, n), position + total);
            } catch (IOException | RuntimeException e) {
                abandon(offset);
                throw e;
            }
            if (read < n) {
                // the file ended early (shortened meanwhile): what was read goes as written bytes would
                abandon(offset);
                unsent.appendAt(claimedIn, payload, read);
                return total + read;
            }
            sent += n;
            commit(offset, DATA, (byte) 0, n);
            total += n;
        }
        return total;
    }

    private static int readFully(FileChannel file, ByteBuffer dst, long position) throws IOException {
        while (dst.hasRemaining() && file.read(dst, position + dst.position()) > 0) {
            // a read from a file stops short only at its end
        }
        return dst.position();
    }

    /**
     * Nagle: hold a small write while earlier frames are outstanding: unacknowledged on a lossy link,
     * not yet taken by the peer on a reliable one. The first data never waits (only the handshake can
     * be outstanding then, and early data is there to save that round trip).
     */
    private boolean holdSmall(boolean large, int length) {
        return !noDelay && !large && length < combineLimit
                && (retransmitter == null ? sent != 0 && !link.peerCaughtUp() : peerAck != sndNxt);
    }

    private int credit(boolean established) {
        if (!established || (retransmitter != null && retransmitter.isFull())) {
            return 0;
        }
        return (int) Math.min(maxPayload, sendEdge - sent);
    }

    private int frameDirect(ByteBuffer src) {
        int total = 0;
        while (src.hasRemaining()) {
            int n = Math.min(src.remaining(), credit(true));
            if (n <= 0) {
                break;
            }
            int offset = claim(DATA, n);
            if (offset < 0) {
                break;
            }
            claimedIn.put(offset + HEADER_LENGTH, src, src.position(), n);
            src.position(src.position() + n);
            sent += n;
            commit(offset, DATA, (byte) 0, n);
            total += n;
        }
        return total;
    }

    /**
     * Frames buffered bytes as credit and link allow; {@code force} overrides combining. Returns whether
     * everything buffered went out, so a pending FIN may follow.
     */
    boolean flushUnsent(boolean force, boolean established) {
        stalled = false;
        while (!unsent.isEmpty()) {
            if (!force && holdSmall(false, unsent.size())) {
                if (nagleDeadline == 0) {
                    nagleDeadline = clock.getAsLong() + config.nagleNanos();
                    timerSet.run();
                }
                return false;
            }
            int n = Math.min(unsent.size(), credit(established));
            if (n <= 0) {
                if (retransmitter != null) {
                    retransmitter.windowClosed(clock.getAsLong());
                }
                nagleDeadline = 0; // waiting for credit now, not for the timer
                link.creditWanted();
                stall();
                return false;
            }
            int offset = claim(DATA, n);
            if (offset < 0) {
                stall();
                return false;
            }
            stopProbing();
            unsent.copyTo(claimedIn, offset + HEADER_LENGTH, n);
            unsent.skip(n);
            sent += n;
            commit(offset, DATA, (byte) 0, n);
        }
        nagleDeadline = 0;
        return true;
    }

    /**
     * Frames one urgent byte, after everything buffered ahead of it; false when it cannot go now (bytes still
     * buffered, no credit or no room in the link).
     */
    boolean sendUrgent(byte data, boolean established) {
        if (!unsent.isEmpty() || credit(established) < 1) {
            return false;
        }
        int offset = claim(DATA, 1);
        if (offset < 0) {
            return false;
        }
        claimedIn.put(offset + HEADER_LENGTH, data);
        sent++;
        commit(offset, DATA, FrameFlyweight.FLAG_URGENT, 1);
        return true;
    }

    /** Sends FIN unless the retransmission window or the link is full; returns whether it went. */
    boolean sendFin() {
        if (retransmitter != null && retransmitter.isFull()) {
            stalled = true;
            return false;
        }
        int offset = claim(FIN, 0);
        if (offset < 0) {
            stall();
            return false;
        }
        finSeq = sndNxt;
        commit(offset, FIN, (byte) 0, 0);
        return true;
    }

    /** Keeps the credit waker registered exactly while {@code waiting}: bytes or a FIN wait to go out. */
    boolean isStalled() {
        return stalled;
    }

    void watchCredit(boolean waiting) {
        if (waiting != watchingCredit) {
            watchingCredit = waiting;
            if (waiting) {
                waiters.add(creditWaker);
            } else {
                waiters.remove(creditWaker);
            }
        }
    }

    /**
     * Out of credit or link space with bytes waiting. On a reliable link the persist timer starts: the
     * peer frees credit below half its buffer without telling, and link space only when its side polls, so a
     * writer whose reader makes no further call would otherwise wait for good. (On a ring link, the peer's poll
     * that frees link space wakes this end at once.)
     */
    private void stall() {
        stalled = true;
        if (creditProbe != null && creditProbe.windowClosed(clock)) {
            timerSet.run();
        }
    }

    /** Whether a reliable link's persist timer says to probe the window now. */
    boolean probeDue(long now) {
        return creditProbe != null && creditProbe.due(now);
    }

    /** The persist timer's deadline, 0 if none. */
    long probeDeadline() {
        return creditProbe == null ? 0 : creditProbe.deadline();
    }

    /** A frame went out, or no bytes wait for credit any more. */
    void stopProbing() {
        if (creditProbe != null) {
            creditProbe.windowOpened();
        }
    }

    boolean nagleDue(long now) {
        return nagleDeadline != 0 && now - nagleDeadline >= 0;
    }

    long nagleDeadline() {
        return nagleDeadline;
    }

    void cancelNagle() {
        nagleDeadline = 0;
    }

    /** Sends an ACK; past a gap it tells which frames are held, or only where the gap is if the link lacks room. */
    void sendAck(byte flags) {
        int sack = reorder != null && reorder.hasGap() ? Math.min(reorder.sackLength(), maxPayload) : 0;
        int offset = claim(ACK, sack);
        if (offset < 0 && sack > 0) {
            sack = 0;
            offset = claim(ACK, 0);
        }
        if (offset >= 0) {
            if (sack > 0) {
                reorder.writeSack(receiver.rcvNxt(), claimedIn, offset + HEADER_LENGTH, sack);
            }
            commit(offset, ACK, flags, sack);
        }
    }

    void sendControl(byte type) {
        int offset = claim(type, 0);
        if (offset >= 0) {
            commit(offset, type, (byte) 0, 0);
        }
    }

    /**
     * Room for a frame of {@code type}, in {@link #claimedIn}: a frame to keep for retransmission goes straight into
     * the retransmitter's store where the link sends from there, anything else into the link's buffer.
     */
    private int claim(byte type, int payloadLength) {
        claimedKept = inPlace && FrameFlyweight.isSequenced(type) && !retransmitter.isFull();
        if (claimedKept) {
            int offset = retransmitter.claim();
            claimedIn = retransmitter.store();
            return offset;
        }
        int offset = link.claim(HEADER_LENGTH + payloadLength);
        claimedIn = link.sendBuffer(); // after the claim, which may have replaced it
        return offset;
    }

    /** Gives up the frame claimed at {@code offset}: one in the retransmitter's store is simply not kept. */
    private void abandon(int offset) {
        if (!claimedKept) {
            link.abandon(offset);
        }
    }

    /** Writes the header of the frame claimed at {@code offset}, keeps it if it must be reliable, sends it. */
    private void commit(int offset, byte type, byte flags, int payloadLength) {
        boolean sequenced = FrameFlyweight.isSequenced(type);
        int seq = sequenced ? sndNxt++ : sndNxt;
        long edge = receiver.edge();
        int length = HEADER_LENGTH + payloadLength;
        out.wrap(claimedIn, offset).header(type, receiver.hasGap() ? (byte) (flags | FLAG_GAP) : flags,
                payloadLength, type == SYN ? 0 : peerToken, seq, receiver.rcvNxt(), edge);
        if (claimedKept) {
            retransmitter.sentInPlace(seq, length, clock.getAsLong());
            timerSet.run();
            link.send(claimedIn, offset, length);
            inPlaceUnsent = true;
        } else {
            if (sequenced && retransmitter != null) {
                retransmitter.sent(seq, claimedIn, offset, length, clock.getAsLong());
                timerSet.run();
            }
            link.commit(offset);
        }
        receiver.acknowledged(edge);
        ringPending = true;
    }

    /** Has the link send what it holds ({@link Link#flush()}): what the session does before it lets go of its lock. */
    void flushLink() {
        link.flush();
        inPlaceUnsent = false;
    }

    /** Resends a kept frame with the current ack and window: in place, or as a copy in the link's buffer. */
    boolean resend(ByteBuffer frame, int frameOffset, int length) {
        ByteBuffer target = frame;
        int offset = frameOffset;
        if (!inPlace) {
            offset = link.claim(length);
            if (offset < 0) {
                return false;
            }
            target = link.sendBuffer();
            target.put(offset, frame, frameOffset, length);
        }
        long edge = receiver.edge();
        out.wrap(target, offset).ackAndWindow(receiver.rcvNxt(), edge);
        out.gap(receiver.hasGap());
        if (inPlace) {
            link.send(target, offset, length);
            inPlaceUnsent = true;
        } else {
            link.commit(offset);
        }
        receiver.advertised(edge);
        ringPending = true;
        return true;
    }
}
