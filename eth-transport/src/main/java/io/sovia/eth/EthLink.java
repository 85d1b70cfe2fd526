package io.sovia.eth;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.EngineCounters;
import io.sovia.spi.engine.FrameFlyweight;
import io.sovia.spi.engine.FrameHandler;
import io.sovia.spi.engine.Link;
import io.sovia.spi.stats.SoviaStats;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One end of a connection over raw Ethernet: an unreliable {@link Link}, so the engine sequences, acknowledges
 * and retransmits (ESP's scheme, with the credit window ESP lacked). Each committed frame is one Ethernet frame,
 * sent with the others the session committed under its lock when it {@linkplain #flush() lets go} ({@link SendBatch});
 * frames for this end wait in {@link #inbound}, where the port's pump (any polling thread of this JVM) puts them.
 *
 * <p>Threading: as {@link Link} says; {@link #receive} runs in the pump (one thread at a time), {@link #answered},
 * {@link #nudged()} and {@link #peerGone()} in the receiver thread, {@link #doorbellReadable()} in a sleeper that
 * {@linkplain #claimReceiveFd() slept on the data socket}.
 */
final class EthLink implements Link {
    private static final long HELLO_RESEND_NANOS = 5_000_000;
    /** The longest a lost hello waits to be sent again, however long the connect waits for its answer. */
    private static final long HELLO_RESEND_MAX_NANOS = 40_000_000;
    /** Connects waiting for answers at once that lengthen each one's wait by {@code sovia.eth.connect.millis}. */
    private static final int HELLOS_PER_WAIT = 10;

    private final EthPort port;
    private final int id;
    final long peerMac;
    final int localPort;
    final int remotePort;
    /** The peer JVM; set once (at creation on the server, by the listener's answer on the client). */
    private volatile EthPeer peer;
    /** The peer's link id; written before {@link #peer}. */
    private int peerLink;
    private final InboundQueue inbound;
    /** The session lock holder's. */
    private final SendBatch batch;
    /** The claimed frame's length, or -1; the session lock holder's. */
    private int claimed = -1;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean gone;
    private volatile Runnable wake = () -> { };
    private volatile Runnable nudgedAction = () -> { };
    /** Polls of this end so far: the session lock holder's; read by the receiver thread as a hint. */
    private int polls;
    /** {@link #polls} when the receiver last looked; the receiver thread's. */
    private int pollsSeen;
    /** The client thread waiting for the listener's answer. */
    private volatile Thread helloWaiter;

    private EthLink(EthPort port, long peerMac, int localPort, int remotePort, EthPeer peer, int peerLink)
            throws IOException {
        this.port = port;
        this.peerMac = peerMac;
        this.localPort = localPort;
        this.remotePort = remotePort;
        this.peerLink = peerLink;
        this.peer = peer;
        int frame = port.maxFrameLength();
        // room for a window of frames and as many copies (resent while this end paused, or had not been accepted
        // yet), so that what is dropped beyond it is copies only; the queue grows to this only for streams
        int queue = Integer.highestOneBit(Math.max(1 << 16, 2 * SoviaConfig.session().windowFrames() * (frame + 16)) - 1) << 1;
        this.inbound = new InboundQueue(queue);
        this.batch = new SendBatch(EthFrameDescriptor.wireLength(frame));
        this.id = port.register(this);
        if (id == 0) {
            throw new IOException("this JVM holds " + EthPort.MAX_LINKS + " eth links already");
        }
    }

    /** The client's end, towards the listener at {@code remotePort} on the host at {@code peerMac}; not yet answered. */
    static EthLink client(EthPort port, long peerMac, int localPort, int remotePort) throws IOException {
        EthLink link = new EthLink(port, peerMac, localPort, remotePort, null, 0);
        port.publish(link);
        return link;
    }

    /** The server's end for a client's hello. */
    static EthLink server(EthPort port, EthPeer peer, int peerLink, int localPort, int remotePort) throws IOException {
        EthLink link = new EthLink(port, peer.mac, localPort, remotePort, peer, peerLink);
        port.publish(link);
        return link;
    }

    int id() {
        return id;
    }

    EthPeer peer() {
        return peer;
    }

    /**
     * Client: asks the listener on the peer host for its end, sending the hello again after 5 ms, then after twice as
     * long each time up to 40 ms, until it answers or {@code timeoutNanos} passed, times one for every
     * {@value #HELLOS_PER_WAIT} connects of this JVM waiting at once (the most seen while it waits): a listener
     * answers hellos one after another, and a fresh server JVM took 66-120 ms to answer 100 at once (15 ms for one),
     * so a pool opened all at once went to TCP, and its destination with it for {@code sovia.eth.verdict.millis}.
     *
     * @return whether it answered
     */
    boolean hello(InetAddress client, InetAddress server, long timeoutNanos) {
        byte[] payload = new byte[EthFrameDescriptor.HELLO_PAYLOAD];
        System.arraycopy(EthAddresses.bytes16(client), 0, payload, 0, 16);
        System.arraycopy(EthAddresses.bytes16(server), 0, payload, 16, 16);
        helloWaiter = Thread.currentThread();
        port.hellosWaiting.incrementAndGet();
        try {
            long start = System.nanoTime();
            long now = start;
            long resend = now;
            long interval = HELLO_RESEND_NANOS;
            long deadline = start + timeoutNanos;
            while (peer == null) {
                // only ever later: the connects answered first leave, and the last ones waited longest for their turn
                long patient = start + timeoutNanos * (1 + (port.hellosWaiting.get() - 1) / HELLOS_PER_WAIT);
                if (patient - deadline > 0) {
                    deadline = patient;
                }
                if (now - deadline >= 0) {
                    return false;
                }
                if (now - resend >= 0) {
                    port.sendControl(EthFrameDescriptor.HELLO, peerMac, remotePort, localPort, 0, 0, id, payload);
                    resend = now + interval;
                    interval = Math.min(2 * interval, HELLO_RESEND_MAX_NANOS);
                }
                LockSupport.parkNanos(this, Math.min(resend, deadline) - now);
                now = System.nanoTime();
            }
            return true;
        } finally {
            port.hellosWaiting.decrementAndGet();
            helloWaiter = null;
        }
    }

    /** The listener answered this client's hello; false if it already had (the caller releases {@code answer}). */
    boolean answered(EthPeer answer, int answerLink) {
        Thread waiter = helloWaiter;
        if (peer != null || waiter == null) {
            return false;
        }
        peerLink = answerLink;
        peer = answer;
        LockSupport.unpark(waiter);
        return true;
    }

    /**
     * The server's end at its claim: whether the client's first frame has come, waiting up to {@code timeoutNanos}
     * (polling every millisecond: only a client that gave up, or whose first frame was lost, makes it wait).
     */
    boolean awaitFirstFrame(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!hasFrames()) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || gone) {
                return false;
            }
            LockSupport.parkNanos(this, Math.min(left, 1_000_000));
        }
        return true;
    }

    /** Whether the frame at {@code frame} of {@code b} comes from this link's peer end, for this end. */
    boolean sentBy(ByteBuffer b, int frame) {
        EthPeer p = peer;
        return p != null && EthFrameDescriptor.sourceMac(b, frame) == peerMac
                && EthFrameDescriptor.sourceInstance(b, frame) == p.instance
                && EthFrameDescriptor.sourceLink(b, frame) == peerLink
                && EthFrameDescriptor.destinationPort(b, frame) == localPort
                && EthFrameDescriptor.sourcePort(b, frame) == remotePort;
    }

    /** The pump: an engine frame of {@code length} bytes at {@code at} of {@code b} arrived for this end. */
    void receive(ByteBuffer b, int at, int length) {
        if (!inbound.offer(b, at, length)) {
            SoviaStats.dropped("eth-queue-full");
            return;
        }
        VarHandle.fullFence(); // pairs with arm's write then hasFrames' read: one of the two sees the other
        if (armed.get()) {
            fire();
        }
    }

    private void fire() {
        if (armed.compareAndSet(true, false)) {
            port.receiver.armed(-1);
            wake.run();
        }
    }

    /**
     * The receiver, every beat: frames that waited since the last beat with nobody polling (a closed socket whose
     * peer's FIN needs its FIN_ACK, an app that reads nothing) get the service thread's visit, as a kernel processes
     * every segment whether the app calls or not: a FIN left unanswered kept the peer's socket open for seconds.
     */
    void serviceIfIdle() {
        int p = polls;
        if (p == pollsSeen && inbound.hasFrames()) {
            nudgedAction.run();
        }
        pollsSeen = p;
    }

    /** The receiver: the peer nudged this end. */
    void nudged() {
        nudgedAction.run();
    }

    /** The receiver: the peer's end is gone (closed, or its JVM died). */
    void peerGone() {
        gone = true;
        wake.run();
    }

    @Override
    public int maxFrameLength() {
        return port.maxFrameLength();
    }

    @Override
    public boolean isReliable() {
        return false;
    }

    @Override
    public int claim(int length) {
        if (claimed >= 0 || length < FrameFlyweight.HEADER_LENGTH || length > port.maxFrameLength()) {
            throw new IllegalStateException("claim of " + length + " bytes, open claim " + claimed);
        }
        if (batch.isFull()) {
            flush();
        }
        claimed = length;
        return batch.nextSlot() + EthFrameDescriptor.HEADER_LENGTH;
    }

    @Override
    public ByteBuffer sendBuffer() {
        return batch.buffer();
    }

    @Override
    public void commit(int offset) {
        int length = claimed;
        claimed = -1;
        EthPeer p = peer;
        if (p == null || closed.get()) {
            return; // nobody to send to: the engine's retransmission or close copes
        }
        ByteBuffer b = batch.buffer();
        int at = offset - EthFrameDescriptor.HEADER_LENGTH;
        EthFrameDescriptor.header(b, at, peerMac, port.self.mac(), EthFrameDescriptor.FRAME, length, remotePort,
                localPort, p.instance, port.instance, peerLink, id);
        int wire = EthFrameDescriptor.wireLength(length);
        for (int i = EthFrameDescriptor.HEADER_LENGTH + length; i < wire; i++) {
            b.put(at + i, (byte) 0);
        }
        batch.add(wire);
    }

    /** The batch took nothing at the claim: its slot is the next claim's. */
    @Override
    public void abandon(int offset) {
        claimed = -1;
    }

    /** Yes: a frame the engine keeps goes out from its store, gathered after this link's header ({@link SendBatch}). */
    @Override
    public boolean sendsInPlace() {
        return true;
    }

    @Override
    public void send(ByteBuffer frames, int offset, int length) {
        if (length < FrameFlyweight.HEADER_LENGTH || length > port.maxFrameLength() || !frames.isDirect()) {
            throw new IllegalArgumentException("a frame of " + length + " bytes in " + frames);
        }
        EthPeer p = peer;
        if (p == null || closed.get()) {
            return; // as commit
        }
        if (EthFrameDescriptor.wireLength(length) != EthFrameDescriptor.HEADER_LENGTH + length) {
            // shorter than Ethernet's minimum: padded in a slot of its own
            int at = claim(length);
            batch.buffer().put(at, frames, offset, length);
            commit(at);
            return;
        }
        if (batch.isFull()) {
            flush();
        }
        EthFrameDescriptor.header(batch.buffer(), batch.nextSlot(), peerMac, port.self.mac(), EthFrameDescriptor.FRAME,
                length, remotePort, localPort, p.instance, port.instance, peerLink, id);
        batch.add(EthFrameDescriptor.HEADER_LENGTH, frames, offset, length);
    }

    @Override
    public void flush() {
        if (batch.size() > 0) {
            port.send(batch);
        }
    }

    @Override
    public int poll(FrameHandler handler, int limit) {
        polls++;
        int n = inbound.poll(handler, limit);
        if (n < limit && !inbound.hasFrames()) {
            // nothing of ours queued (the usual case while this end keeps polling): the ring's frames for us need
            // no copy into the queue, one of the five a stream's bytes took between the two apps
            return n + port.pump(this, handler, limit - n);
        }
        port.pump();
        return n + inbound.poll(handler, limit - n);
    }

    /** Lossy: the engine counts on acknowledgements, not on this. */
    @Override
    public boolean peerCaughtUp() {
        return false;
    }

    /**
     * Waits for another thread's pump to finish before it looks: the engine asks this to conclude that a peer marked
     * gone sent nothing more, and a frame of ours another thread has taken from the ring but not yet queued would
     * otherwise be missed (the peer's GONE comes by the control socket and can overtake it).
     */
    @Override
    public boolean hasFrames() {
        if (inbound.hasFrames()) {
            return true;
        }
        port.pumpAfterOthers();
        return inbound.hasFrames();
    }

    @Override
    public void arm(int how) {
        boolean arm = how != 0;
        if (arm ? armed.compareAndSet(false, true) : armed.compareAndSet(true, false)) {
            port.receiver.armed(arm ? 1 : -1);
        }
    }

    /** Nothing to do: the peer host's receiver (or its thread asleep on the data socket) wakes its sleepers. */
    @Override
    public void wakePeer() {
    }

    /** The data socket, while no other thread of this JVM sleeps on it ({@link EthReceiver#claimDataSleep()}). */
    @Override
    public int claimReceiveFd() {
        return port.receiver.claimDataSleep() ? port.dataFd : -1;
    }

    @Override
    public void releaseReceiveFd() {
        port.receiver.releaseDataSleep();
    }

    /** The data socket woke its sleeper: the ring's frames go to their links, waking those armed. */
    @Override
    public boolean doorbellReadable() {
        port.receiver.takeData();
        return true;
    }

    @Override
    public void onWake(Runnable action) {
        this.wake = action;
    }

    @Override
    public void nudge() {
        EthPeer p = peer;
        if (p != null && !gone) {
            tellPeer(EthFrameDescriptor.NUDGE, p);
        }
    }

    /** Sends a control frame of {@code kind} to the peer's end. */
    private void tellPeer(byte kind, EthPeer p) {
        port.sendControl(kind, peerMac, remotePort, localPort, p.instance, peerLink, id, null);
    }

    @Override
    public void onNudge(Runnable poll) {
        this.nudgedAction = poll;
    }

    @Override
    public boolean isPeerAlive() {
        EthPeer p = peer;
        return !gone && (p == null || !p.dead);
    }

    /** A peer JVM found dead hung up; a link the peer said it let go of was released. */
    @Override
    public void countPeerLoss() {
        EthPeer p = peer;
        (p != null && p.dead ? EngineCounters.PEERS_HUNG_UP : EngineCounters.PEERS_RELEASED).increment();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        arm(0);
        port.unregister(id);
        EthPeer p = peer;
        if (p != null) {
            if (!gone && !p.dead) {
                tellPeer(EthFrameDescriptor.GONE, p);
            }
            port.releasePeer(p);
        }
    }
}
