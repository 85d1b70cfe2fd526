package io.sovia.spi.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * One end of a {@link SimNetwork}: the {@link Link} a session under test runs over, in one thread, on
 * virtual time. It also checks how the engine uses it (one claim at a time, committed frames well formed)
 * and counts frames by type in both directions for the tests' assertions. A {@linkplain #nudge() nudge}
 * travels like a frame and, on arrival, runs the peer end's {@link #onNudge} callback, which the
 * {@link SimDriver} turns into a service-thread visit.
 *
 * <p>An unreliable end may {@linkplain #sendsInPlace() send in place} (chosen per end, as the eth link does): the
 * engine then hands over the frames it keeps from its own store, and this end reads them, and sends everything
 * committed since, only at {@link #flush()}, as the eth link's batch does; an engine that changed a kept frame it had
 * handed over, or forgot to flush, shows.
 *
 * <p>To catch an engine that reads or keeps more than it should, a claimed region is filled with junk
 * before the engine writes it, a received frame sits flush against the end of the receive buffer (a read
 * past it throws), and is overwritten with junk once the handler returns.
 */
final class SimLink implements Link {
    private static final byte[] JUNK = new byte[65536];
    /** {@code -Dsovia.trace=true} prints every frame committed and delivered, to debug a replayed seed. */
    static final boolean TRACE = Boolean.getBoolean("sovia.trace");

    static {
        java.util.Arrays.fill(JUNK, (byte) 0xA5);
    }

    final SimNetwork net;
    final String name;
    SimLink peer;
    final PriorityQueue<SimNetwork.InFlight> incoming = SimNetwork.queue();
    long queuedBytes;
    long lastDeliveryAt = Long.MIN_VALUE;
    /** Arrival times of the nudges the peer sent this end, earliest first. */
    final ArrayDeque<Long> nudges = new ArrayDeque<>();
    private Runnable nudged = () -> { };
    long nudgesSent;
    long nudgesDelivered;
    boolean closed;
    private final int maxFrameLength;
    /** Two, and each claim hands out the other, as a link whose buffer grows replaces it. */
    private final ByteBuffer[] sendBuffers = new ByteBuffer[2];
    private ByteBuffer sendBuffer;
    private final ByteBuffer receiveBuffer;
    private final FrameFlyweight frame = new FrameFlyweight();
    private int claimed = -1;
    private final boolean inPlace;
    /** In place: frames handed over and not flushed yet, in order; a committed one as a copy, a sent one where it is. */
    private final List<Pending> pending = new ArrayList<>();

    private record Pending(byte[] copy, ByteBuffer frames, int offset, int length) {
    }

    /** The sender's windowFrames on an unreliable link: more sequenced frames in flight break the engine's contract (0: unchecked). */
    int windowFrames;
    /** This end's token (learnt from the SYN or SYN_ACK it sends) and the highest ack its session has been sent. */
    private long ownToken;
    private boolean haveToken;
    private int maxAck;
    private boolean haveAck;
    private int highestSeq;
    private boolean anySeq;

    // what this end committed
    final long[] sent = new long[8];
    long dataBytesSent;
    /** DATA payload bytes committed for the first time (retransmissions excluded): the stream sent. */
    long uniqueDataBytes;
    private boolean anyData;
    private int highestDataSeq;
    // what reached this end (duplicates included)
    final long[] delivered = new long[8];
    long dataBytesDelivered;
    long lost;
    long duplicated;
    long claimsRefused;
    /** Frames this end committed after an RST had been delivered to it. */
    long sentAfterReset;

    SimLink(SimNetwork net, String name, int maxFrameLength, boolean direct, boolean inPlace) {
        this.net = net;
        this.name = name;
        this.maxFrameLength = maxFrameLength;
        this.inPlace = inPlace;
        for (int i = 0; i < sendBuffers.length; i++) {
            sendBuffers[i] = (direct ? ByteBuffer.allocateDirect(maxFrameLength) : ByteBuffer.allocate(maxFrameLength))
                    .order(ByteOrder.LITTLE_ENDIAN);
        }
        this.sendBuffer = sendBuffers[0];
        // the receive side uses the other kind of buffer, so both kinds are exercised in one run
        this.receiveBuffer = direct ? ByteBuffer.allocate(maxFrameLength) : ByteBuffer.allocateDirect(maxFrameLength);
        receiveBuffer.order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    public boolean peerCaughtUp() {
        return peer.incoming.isEmpty();
    }

    @Override
    public boolean isReliable() {
        return net.reliable;
    }

    @Override
    public int claim(int length) {
        if (claimed >= 0) {
            throw new AssertionError(name + ": claim(" + length + ") while a claim of " + claimed + " is open");
        }
        if (length < FrameFlyweight.HEADER_LENGTH || length > maxFrameLength) {
            throw new AssertionError(name + ": claim of " + length + " bytes, max " + maxFrameLength);
        }
        if (net.capacity > 0 && peer.queuedBytes + length > net.capacity) {
            claimsRefused++;
            return -1;
        }
        claimed = length;
        sendBuffer = sendBuffer == sendBuffers[0] ? sendBuffers[1] : sendBuffers[0];
        sendBuffer.put(0, JUNK, 0, length);
        return 0;
    }

    @Override
    public ByteBuffer sendBuffer() {
        return sendBuffer;
    }

    @Override
    public void commit(int offset) {
        if (claimed < 0 || offset != 0) {
            throw new AssertionError(name + ": commit(" + offset + ") without a claim");
        }
        int length = claimed;
        claimed = -1;
        byte[] copy = new byte[length];
        sendBuffer.get(0, copy);
        sendBuffer.put(0, JUNK, 0, length);
        if (inPlace) {
            pending.add(new Pending(copy, null, 0, length));
        } else {
            emit(copy);
        }
    }

    @Override
    public void abandon(int offset) {
        if (claimed < 0 || offset != 0) {
            throw new AssertionError(name + ": abandon(" + offset + ") without a claim");
        }
        sendBuffer.put(0, JUNK, 0, claimed);
        claimed = -1;
    }

    @Override
    public boolean sendsInPlace() {
        return inPlace;
    }

    @Override
    public void send(ByteBuffer frames, int offset, int length) {
        if (!inPlace || claimed >= 0 || !frames.isDirect() || length < FrameFlyweight.HEADER_LENGTH
                || length > maxFrameLength) {
            throw new AssertionError(name + ": send of " + length + " bytes from " + frames + ", in place " + inPlace
                    + ", open claim " + claimed);
        }
        pending.add(new Pending(null, frames, offset, length));
    }

    @Override
    public void flush() {
        for (Pending p : pending) {
            byte[] copy = p.copy();
            if (copy == null) {
                copy = new byte[p.length()];
                p.frames().get(p.offset(), copy);
            }
            emit(copy);
        }
        pending.clear();
    }

    /** Checks a frame this end sends, counts it and puts it on the network. */
    private void emit(byte[] copy) {
        int length = copy.length;
        ByteBuffer wire = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
        FrameFlyweight f = frame.wrap(wire, 0);
        byte type = f.type();
        int payload = f.payloadLength();
        boolean sack = type == FrameFlyweight.ACK && (f.flags() & FrameFlyweight.FLAG_GAP) != 0 && payload > 0
                && payload <= FrameFlyweight.SACK_MAX_BITS / 8;
        int expected = type == FrameFlyweight.SYN || type == FrameFlyweight.SYN_ACK ? 8
                : type == FrameFlyweight.DATA || sack ? -1 : 0;
        if (type < FrameFlyweight.SYN || type > FrameFlyweight.RST || payload != length - FrameFlyweight.HEADER_LENGTH
                || (expected >= 0 ? payload != expected : payload <= 0) || wire.getShort(2) != 0) {
            throw new AssertionError(name + ": malformed frame committed: type " + FrameFlyweight.typeName(type)
                    + ", payload " + payload + ", claimed " + length);
        }
        sent[type]++;
        if (delivered[FrameFlyweight.RST] > 0) {
            sentAfterReset++;
        }
        if (type == FrameFlyweight.SYN || type == FrameFlyweight.SYN_ACK) {
            ownToken = f.payloadToken();
            haveToken = true;
        }
        if (FrameFlyweight.isSequenced(type) && (!anySeq || f.seq() - highestSeq > 0)) {
            anySeq = true;
            highestSeq = f.seq();
            if (windowFrames > 0 && haveAck && f.seq() - maxAck >= windowFrames) {
                throw new AssertionError(name + ": " + FrameFlyweight.typeName(type) + " seq " + f.seq() + " sent with "
                        + (f.seq() - maxAck) + " sequenced frames unacknowledged before it, windowFrames " + windowFrames);
            }
        }
        if (type == FrameFlyweight.DATA) {
            dataBytesSent += payload;
            if (!anyData || f.seq() - highestDataSeq > 0) {
                anyData = true;
                highestDataSeq = f.seq();
                uniqueDataBytes += payload;
            }
        }
        if (TRACE) {
            trace("send", f);
        }
        if (!closed) {
            net.send(peer, copy);
        }
    }

    @Override
    public int poll(FrameHandler handler, int limit) {
        int n = 0;
        while (n < limit && !incoming.isEmpty() && incoming.peek().at() - net.now <= 0) {
            byte[] bytes = incoming.peek().frame();
            int offset = receiveBuffer.capacity() - bytes.length;
            receiveBuffer.put(offset, bytes);
            if (TRACE && bytes.length >= FrameFlyweight.HEADER_LENGTH) {
                trace("    recv", frame.wrap(receiveBuffer, offset));
            }
            boolean taken = handler.onFrame(receiveBuffer, offset, bytes.length);
            receiveBuffer.put(offset, JUNK, 0, bytes.length); // the frame is valid only during the call
            if (!taken) {
                break; // the engine left it for a later poll
            }
            incoming.poll();
            queuedBytes -= bytes.length;
            countDelivered(bytes);
            if (TRACE) {
                System.out.println("        -> " + EngineCounters.toJson());
            }
            n++;
        }
        return n;
    }

    private void countDelivered(byte[] bytes) {
        byte type = bytes.length == 0 ? -1 : bytes[0];
        if (bytes.length >= FrameFlyweight.HEADER_LENGTH && type != FrameFlyweight.SYN) {
            ByteBuffer copy = ByteBuffer.wrap(bytes);
            FrameFlyweight g = frame.wrap(copy, 0);
            if (haveToken && g.token() == ownToken && (!haveAck || g.ack() - maxAck > 0)) {
                maxAck = g.ack();
                haveAck = true;
            }
        }
        if (type >= 0 && type < delivered.length) {
            delivered[type]++;
            if (type == FrameFlyweight.DATA && bytes.length >= FrameFlyweight.HEADER_LENGTH) {
                dataBytesDelivered += bytes.length - FrameFlyweight.HEADER_LENGTH;
            }
        }
    }

    @Override
    public boolean hasFrames() {
        return !incoming.isEmpty() && incoming.peek().at() - net.now <= 0;
    }

    @Override
    public void arm(int how) {
    }

    @Override
    public void wakePeer() {
    }

    @Override
    public void onWake(Runnable wake) {
    }

    /**
     * Arrives after the link delay, behind every frame committed before it, and is never lost: RingLink's
     * frames are in the ring the moment they are committed, so its nudge too finds the probe it follows.
     * Arriving at once here, it would overtake that probe on the wire; the peer's visit would find
     * nothing, and the probe would be answered only on the next nudge, a persist interval later. Draws
     * no random number, so runs that never nudge replay as before.
     */
    @Override
    public void nudge() {
        nudgesSent++;
        if (closed || peer.closed) {
            return; // as frames: a dead end neither sends nor receives
        }
        long at = Math.max(net.now + net.baseDelay, peer.lastDeliveryAt);
        if (!peer.nudges.isEmpty()) {
            at = Math.max(at, peer.nudges.peekLast());
        }
        peer.nudges.add(at);
    }

    @Override
    public void onNudge(Runnable poll) {
        nudged = poll;
    }

    /** Runs the nudge callback once for every nudge that has arrived by now. */
    void nudgesArrive() {
        while (!nudges.isEmpty() && nudges.peekFirst() - net.now <= 0) {
            nudges.pollFirst();
            nudgesDelivered++;
            nudged.run();
        }
    }

    /** The peer's death is noticed only behind the frames it sent before, as on a real ring. */
    @Override
    public boolean isPeerAlive() {
        return !peer.closed || !incoming.isEmpty();
    }

    /** Closes this end without a word to the peer: a crash, when the session is not closed first. */
    @Override
    public void close() {
        closed = true;
    }

    /** Injects raw bytes as a frame arriving at this end now, past all impairments (garbage tests). */
    void inject(byte[] bytes) {
        net.enqueue(this, bytes, net.now);
    }

    private void trace(String what, FrameFlyweight f) {
        System.out.println(net.now + " " + name + " " + what + " " + FrameFlyweight.typeName(f.type()) + " seq="
                + f.seq() + " ack=" + f.ack() + " win=" + f.window() + " len=" + f.payloadLength());
    }

    long sent(byte type) {
        return sent[type];
    }

    long delivered(byte type) {
        return delivered[type];
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(name).append(": sent");
        for (byte t = 1; t < 8; t++) {
            s.append(' ').append(FrameFlyweight.typeName(t)).append('=').append(sent[t]);
        }
        s.append(", data=").append(dataBytesSent).append(" unique=").append(uniqueDataBytes).append("; received");
        for (byte t = 1; t < 8; t++) {
            s.append(' ').append(FrameFlyweight.typeName(t)).append('=').append(delivered[t]);
        }
        return s.append(", data=").append(dataBytesDelivered).append(", lost=").append(lost).append(", dup=")
                .append(duplicated).append(", queued=").append(incoming.size()).append(", refused=")
                .append(claimsRefused).append(", nudges sent=").append(nudgesSent).append(" received=")
                .append(nudgesDelivered)
                .append(closed ? ", CLOSED" : "").toString();
    }
}
