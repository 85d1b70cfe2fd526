package io.sovia.eth;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.FrameFlyweight;
import io.sovia.spi.engine.FrameHandler;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.PacketOs;
import io.sovia.spi.stats.SoviaStats;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * This JVM's access to the cluster's segment: two packet sockets on the host table's interface, one for the
 * engine's frames (read through a receive ring by whichever thread polls, no hand-off) and one for control
 * frames (hellos, beats, nudges, gone), read by the {@link EthReceiver}; the table of this JVM's links by id,
 * its listeners by port, and the peer JVMs it has links with.
 *
 * <p>Threading: any thread. The ring is read by one thread at a time, whoever takes {@link #pumper}; a thread
 * that finds it taken goes on, since the holder delivers to every link and wakes the armed ones, except one that
 * must know every frame has reached its link ({@link #pumpAfterOthers()}).
 */
final class EthPort {
    static final int MAX_LINKS = 1 << 16;
    private static final int SLOT_HEADROOM = 128;
    /** Spins a thread waiting for another's pump makes before it yields: a pump takes microseconds. */
    private static final int PUMP_WAIT_SPINS = 100;

    final EthInterface nic;
    final HostTable table;
    final HostTable.Host self;
    final PacketOs os;
    final int instance;
    final int dataFd;
    final int controlFd;
    private final RxRing ring;
    /** The thread reading the ring, or null. */
    private final AtomicReference<Thread> pumper = new AtomicReference<>();
    /** The pump's frame delivery; the {@link #pumper}'s. */
    private final Delivery delivery = new Delivery();
    /** Connects of this JVM waiting for the answer to their hello ({@link EthLink#hello}). */
    final AtomicInteger hellosWaiting = new AtomicInteger();
    private final AtomicReferenceArray<EthLink> links = new AtomicReferenceArray<>(MAX_LINKS);
    /** Per slot, bumped at each reuse so a stale id never names a new link; guarded by {@code links}. */
    private final int[] generations = new int[MAX_LINKS];
    /** Free slots; guarded by {@code links}. */
    private final int[] free = new int[MAX_LINKS];
    private int freeCount;
    /** One past the highest slot ever handed out: the walks stop there, not at {@link #MAX_LINKS}. */
    private volatile int slotsUsed = 1;
    final Map<Integer, EthListener> listeners = new ConcurrentHashMap<>();
    /** Peer JVMs by instance; changed under itself. */
    private final Map<Integer, EthPeer> peers = new ConcurrentHashMap<>();
    /** For control frames, which any thread may send; guarded by itself. */
    private final ByteBuffer control = ByteBuffer.allocateDirect(EthFrameDescriptor.HEADER_LENGTH
            + EthFrameDescriptor.HELLO_PAYLOAD + 64).order(ByteOrder.LITTLE_ENDIAN);
    final EthReceiver receiver;
    /** Told of a listener's answer that came after its client gave up: the host and the listener's port. */
    volatile BiConsumer<HostTable.Host, Integer> lateAnswer = (host, port) -> { };

    private EthPort(HostTable table, HostTable.Self self, PacketOs os, int instance, int dataFd, int controlFd,
                    RxRing ring) throws IOException {
        this.table = table;
        this.self = self.host();
        this.nic = self.nic();
        this.os = os;
        this.instance = instance;
        this.dataFd = dataFd;
        this.controlFd = controlFd;
        this.ring = ring;
        for (int i = MAX_LINKS - 1; i > 0; i--) {
            free[freeCount++] = i; // slot 0 stays unused: link id 0 means none
        }
        this.receiver = new EthReceiver(this);
    }

    /** Opens this JVM's sockets on the interface the host table names for this host. */
    static EthPort open(HostTable table) throws IOException {
        HostTable.Self self = table.self();
        EthInterface nic = self.nic();
        if (!nic.up()) {
            throw new IOException("interface " + nic.name() + " is down");
        }
        if (nic.mtu() < 576) {
            throw new IOException("interface " + nic.name() + " has an MTU of " + nic.mtu());
        }
        PacketOs os = NativeAccess.os().packets();
        int instance;
        do {
            instance = new SecureRandom().nextInt();
        } while (instance == 0);
        int slot = Integer.highestOneBit(nic.mtu() + EthFrameDescriptor.ETHERNET_HEADER + SLOT_HEADROOM) * 2;
        int perBlock = Math.max(1, (1 << 16) / slot);
        int slots = Math.max(perBlock, SoviaConfig.ethRingBytes() / slot / perBlock * perBlock);
        int data = os.open();
        int control = -1;
        ByteBuffer ringMemory = null;
        try {
            os.ignoreOutgoing(data);
            os.attachFilter(data, EthFilters.data(instance));
            ringMemory = os.rxRing(data, slot, slots);
            os.bind(data, nic.index(), EthFrameDescriptor.ETHER_TYPE);
            control = os.open();
            os.ignoreOutgoing(control);
            os.attachFilter(control, EthFilters.control(instance));
            os.bind(control, nic.index(), EthFrameDescriptor.ETHER_TYPE);
            return new EthPort(table, self, os, instance, data, control, new RxRing(ringMemory, slot));
        } catch (IOException | RuntimeException e) {
            if (ringMemory != null) {
                os.unmap(ringMemory);
            }
            NativeAccess.os().closeFd(data);
            if (control >= 0) {
                NativeAccess.os().closeFd(control);
            }
            throw e;
        }
    }

    /** The largest engine frame a link of this port carries. */
    int maxFrameLength() {
        return nic.mtu() - (EthFrameDescriptor.HEADER_LENGTH - EthFrameDescriptor.ETHERNET_HEADER);
    }

    /** An id for {@code link}, which {@link #publish} then makes reachable; 0 when this JVM holds as many links as it can. */
    int register(EthLink link) {
        synchronized (links) {
            if (freeCount == 0) {
                return 0;
            }
            int slot = free[--freeCount];
            if (slot >= slotsUsed) {
                slotsUsed = slot + 1;
            }
            int generation = generations[slot] = generations[slot] % 0x7FFF + 1;
            return generation << 16 | slot;
        }
    }

    /** Makes {@code link}, which has its id from {@link #register}, reachable by frames. */
    void publish(EthLink link) {
        links.set(link.id() & 0xFFFF, link);
    }

    void unregister(int id) {
        int slot = id & 0xFFFF;
        synchronized (links) {
            EthLink link = links.get(slot);
            if (link == null || link.id() == id) {
                links.set(slot, null);
                free[freeCount++] = slot;
            }
        }
    }

    /** The link with {@code id}, or null. */
    EthLink link(int id) {
        EthLink link = links.get(id & 0xFFFF);
        return link != null && link.id() == id ? link : null;
    }

    /**
     * Runs {@code action} for every live link: the receiver's walks, ten a second. Slots are handed out lowest first,
     * so the walk covers the most links this JVM held at once, not all 65,536 slots each time.
     */
    void forEachLink(Consumer<EthLink> action) {
        for (int i = 1, end = slotsUsed; i < end; i++) {
            EthLink link = links.get(i);
            if (link != null) {
                action.accept(link);
            }
        }
    }

    /**
     * The peer JVM {@code instance} at {@code mac}, which named {@code livenessPort} in the frame at hand, counted as
     * having one more link; null if the id is taken by another MAC. Called by the receiver thread.
     */
    EthPeer acquirePeer(long mac, int instance, int livenessPort) {
        synchronized (peers) {
            EthPeer peer = peers.computeIfAbsent(instance, i -> new EthPeer(mac, i, System.nanoTime()));
            if (peer.mac != mac || peer.dead) {
                return null;
            }
            peer.livenessPort = livenessPort;
            peer.links++;
            return peer;
        }
    }

    void releasePeer(EthPeer peer) {
        synchronized (peers) {
            if (--peer.links == 0) {
                peers.remove(peer.instance, peer);
            }
        }
    }

    EthPeer peer(int instance) {
        return peers.get(instance);
    }

    Iterable<EthPeer> peers() {
        return peers.values();
    }

    /** Forgets a dead peer so a link to the same instance is never made again by mistake. */
    void forget(EthPeer peer) {
        synchronized (peers) {
            peers.remove(peer.instance, peer);
        }
    }

    /** Whether a frame waits in the ring; cheap. */
    boolean ready() {
        return ring.ready();
    }

    /** Moves the frames waiting in the ring to their links, waking those armed, unless another thread is at it. */
    void pump() {
        pump(null, null, 0);
    }

    /**
     * As {@link #pump()}, but when another thread is at it, waits until it is done, so that every frame in the ring
     * when this was called has reached its link on return. A pump runs no blocking call (its wake-ups only try
     * locks), but it may deliver a lap of a stream's frames, each with its engine's work, so the wait can last
     * milliseconds (the receiver thread takes the bounded form below); called from within a pump (the engine's code
     * for the polling link runs there), it returns at once, as that pump goes on.
     */
    void pumpAfterOthers() {
        pumpAfterOthers(Integer.MAX_VALUE, -1);
    }

    /**
     * As {@link #pumpAfterOthers()}, but moves {@code maxFrames} frames at most, and gives up when another thread
     * still pumps after {@code maxWaitNanos} (negative: waits as long as it takes): for the receiver thread, which
     * must get back to its control frames and beats between batches. A stream's frames kept it in one pump, or
     * waiting for another thread's (which then delivers the frames), for up to a second, its beats late by as much
     * and its hellos unanswered.
     */
    void pumpAfterOthers(int maxFrames, long maxWaitNanos) {
        Thread me = Thread.currentThread();
        if (pumper.get() == me) {
            return;
        }
        long waitedSince = 0;
        for (int spins = 0; !pumper.compareAndSet(null, me); spins++) {
            if (spins < PUMP_WAIT_SPINS) {
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (waitedSince == 0) {
                waitedSince = now;
            } else if (maxWaitNanos >= 0 && now - waitedSince > maxWaitNanos) {
                return;
            }
            // the holder may have lost its core to this thread (threads outnumber cores): let it finish
            Thread.yield();
        }
        try {
            drain(null, null, 0, maxFrames);
        } finally {
            pumper.set(null);
        }
    }

    /**
     * As {@link #pump()}, but frames for {@code target} go straight from the ring to {@code handler}, up to
     * {@code limit} of them, instead of as copies through the target's queue: what its session's lock holder, which
     * polls it, calls once the queue is empty. A frame the handler leaves, and every later one for the target, is
     * queued instead, so the target's frames keep their order.
     *
     * @return the frames {@code handler} took
     */
    int pump(EthLink target, FrameHandler handler, int limit) {
        if (!ring.ready() || !pumper.compareAndSet(null, Thread.currentThread())) {
            return 0;
        }
        try {
            return drain(target, handler, limit, Integer.MAX_VALUE);
        } finally {
            pumper.set(null);
        }
    }

    /** The pump's work, by the thread that holds {@link #pumper}: a lap of the ring at most ({@link RxRing#drain}). */
    private int drain(EthLink target, FrameHandler handler, int limit, int maxFrames) {
        delivery.start(target, handler, limit);
        ring.drain(delivery, maxFrames);
        return delivery.taken;
    }

    /**
     * Where a pump's frames go: to their links' queues, or for the target of {@link #pump(EthLink, FrameHandler, int)}
     * straight to its handler while it takes them and no frame of the target's has been queued. Owned by the thread
     * that holds {@link #pumper}.
     */
    private final class Delivery implements RxRing.FrameVisitor {
        private EthLink target;
        private FrameHandler handler;
        private int limit;
        private boolean direct;
        int taken;

        void start(EthLink target, FrameHandler handler, int limit) {
            this.target = target;
            this.handler = handler;
            this.limit = limit;
            this.direct = target != null;
            this.taken = 0;
        }

        @Override
        public void visit(ByteBuffer b, int frame, int length) {
            EthLink link = destination(b, frame, length);
            if (link == null) {
                return;
            }
            int at = frame + EthFrameDescriptor.HEADER_LENGTH;
            int payload = EthFrameDescriptor.payloadLength(b, frame);
            if (link == target && direct && taken < limit && handler.onFrame(b, at, payload)) {
                taken++;
            } else {
                direct &= link != target;
                link.receive(b, at, payload);
            }
        }
    }

    /** The link the frame at {@code frame} is for, or null when it is for none (dropped and counted). */
    private EthLink destination(ByteBuffer b, int frame, int length) {
        if (length < EthFrameDescriptor.HEADER_LENGTH || EthFrameDescriptor.version(b, frame) != EthFrameDescriptor.VERSION
                || EthFrameDescriptor.kind(b, frame) != EthFrameDescriptor.FRAME) {
            SoviaStats.dropped("eth-malformed");
            return null;
        }
        int payload = EthFrameDescriptor.payloadLength(b, frame);
        if (payload < FrameFlyweight.HEADER_LENGTH || EthFrameDescriptor.HEADER_LENGTH + payload > length) {
            SoviaStats.dropped("eth-bad-length");
            return null;
        }
        EthLink link = link(EthFrameDescriptor.destinationLink(b, frame));
        if (link == null) {
            SoviaStats.dropped("eth-unknown-link");
            answerStray(b, frame);
            return null;
        }
        if (!link.sentBy(b, frame)) {
            SoviaStats.dropped("eth-stray");
            return null;
        }
        return link;
    }

    /** A frame for a link this JVM no longer has, from a cluster host: its sender must stop waiting. */
    private void answerStray(ByteBuffer b, int frame) {
        long mac = EthFrameDescriptor.sourceMac(b, frame);
        if (table.byMac(mac) != null) {
            sendControl(EthFrameDescriptor.GONE, mac, EthFrameDescriptor.sourcePort(b, frame),
                    EthFrameDescriptor.destinationPort(b, frame), EthFrameDescriptor.sourceInstance(b, frame),
                    EthFrameDescriptor.sourceLink(b, frame), EthFrameDescriptor.destinationLink(b, frame), null);
        }
    }

    /** Sends a whole frame; false (counted) when the socket's buffer is full or the interface failed. */
    boolean send(ByteBuffer frame, int length) {
        try {
            if (os.send(dataFd, frame, 0, length)) {
                return true;
            }
            SoviaStats.dropped("eth-send-buffer-full");
        } catch (IOException e) {
            SoviaStats.dropped("eth-send-failed");
            SoviaLog.warnCounted("eth-send", "sending on " + nic.name() + " failed; the engine retransmits", e);
        }
        return false;
    }

    /**
     * Sends a link's batch of frames; those the socket's buffer has no room for are dropped and counted. A lone frame
     * in one piece (request/response traffic) goes by plain {@code send}, a little cheaper than {@code sendmmsg}.
     */
    void send(SendBatch batch) {
        int n = batch.size();
        if (n == 1 && batch.isWhole(0)) {
            send(batch.buffer(), batch.length(0));
            batch.clear();
            return;
        }
        try {
            SoviaStats.dropped("eth-send-buffer-full", n - os.sendMany(dataFd, batch.vector(), n));
        } catch (IOException e) {
            SoviaStats.dropped("eth-send-failed", n);
            SoviaLog.warnCounted("eth-send", "sending on " + nic.name() + " failed; the engine retransmits", e);
        }
        batch.clear();
    }

    /** Sends a control frame (any kind but FRAME) with an optional payload. */
    boolean sendControl(byte kind, long mac, int destinationPort, int sourcePort, int destinationInstance,
                        int destinationLink, int sourceLink, byte[] payload) {
        synchronized (control) {
            int length = payload == null ? 0 : payload.length;
            EthFrameDescriptor.header(control, 0, mac, self.mac(), kind, length, destinationPort, sourcePort,
                    destinationInstance, instance, destinationLink, sourceLink);
            EthFrameDescriptor.putLivenessPort(control, receiver.livenessPort());
            if (payload != null) {
                control.put(EthFrameDescriptor.HEADER_LENGTH, payload);
            }
            int wire = EthFrameDescriptor.wireLength(length);
            for (int i = EthFrameDescriptor.HEADER_LENGTH + length; i < wire; i++) {
                control.put(i, (byte) 0);
            }
            return send(control, wire);
        }
    }
}
