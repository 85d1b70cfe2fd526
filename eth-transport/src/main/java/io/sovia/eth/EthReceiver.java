package io.sovia.eth;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;
import io.sovia.spi.stats.SoviaStats;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NoOpIdleStrategy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The eth path's one thread per JVM: reads control frames (hellos, answers, nudges, beats, gone), beats to every
 * peer JVM and buries those gone silent, sweeps the listeners' hellos, and reads the data ring only while a link
 * has a sleeper ({@link #armed}) and no app thread sleeps on the data socket itself ({@link #claimDataSleep()}): a
 * polling thread reads the ring itself, and waking this thread for every frame would cost a wake-up each on a core
 * the app needs.
 */
final class EthReceiver implements Agent {
    private static final long WAKE = 0;
    private static final long CONTROL = 1;
    private static final long DATA = 2;
    private static final long PROBE = 3;
    private static final long LIVENESS = 4;
    private static final long BEAT_NANOS = 100_000_000;
    /** Frames the receiver moves from the ring before it looks at its control socket and beats again. */
    private static final int DATA_BATCH = 64;
    /** How long the receiver waits for another thread's pump before it looks at its control socket and beats. */
    private static final long PUMP_WAIT_NANOS = 1_000_000;

    private final EthPort port;
    private final NativeOs os;
    /** Never closed (see ShmDoorbells): any thread may call epoll_ctl on it while the JVM lives. */
    private final int epoll;
    private final int wakeFd;
    private final long deadNanos = SoviaConfig.ethDeadNanos();
    private final EthLiveness liveness;
    /** The receiver thread's. */
    private final ByteBuffer in;
    private final long[] readyData = new long[4];
    private final int[] readyEvents = new int[4];
    private long nextBeat = System.nanoTime();
    /**
     * Links armed, whether a thread sleeps on the data socket in their stead ({@link #claimDataSleep()}), and whether
     * this thread watches it; guarded by {@code this}.
     */
    private int armedLinks;
    private boolean dataSleeper;
    private boolean watchingData;

    EthReceiver(EthPort port) throws IOException {
        this.port = port;
        this.os = NativeAccess.os();
        this.in = ByteBuffer.allocateDirect(port.nic.mtu() + EthFrameDescriptor.ETHERNET_HEADER + 64)
                .order(ByteOrder.LITTLE_ENDIAN);
        this.epoll = os.epollCreate();
        this.wakeFd = os.eventfdCreate();
        os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, wakeFd, NativeOs.EPOLLIN, WAKE);
        os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, port.controlFd, NativeOs.EPOLLIN, CONTROL);
        this.liveness = EthLiveness.open(port.self.ip(), deadNanos);
        os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, liveness.listenerFd(), NativeOs.EPOLLIN, LIVENESS);
    }

    /** The TCP port this JVM answers peers' probes on. */
    int livenessPort() {
        return liveness.port();
    }

    void start() {
        Lifecycle.start(this, new NoOpIdleStrategy(), () -> os.eventfdSignal(wakeFd));
    }

    /**
     * A link armed ({@code +1}) or stopped ({@code -1}): the data socket is in this thread's epoll set while any is
     * armed, and out of it otherwise. Left in with no events, it kept a wait-queue entry on the socket, and the kernel
     * ran the wake-up path for every frame it put in the ring: 5% of a stream's sender, whose CPU delivers the frames.
     * (The control socket is always watched, so an interface's failure is seen there.)
     */
    synchronized void armed(int delta) {
        armedLinks += delta;
        watchData();
    }

    /**
     * Lets the calling thread, about to sleep for its link, sleep on the data socket itself unless another thread
     * does: the kernel then wakes it when frames come, not this thread, which then had to wake it (two wake-ups, each
     * ~60 us across cores here, and with every core busy each waits for a time slice: eth round trips were 0.3x TCP's
     * under CPU-bound neighbours). While it sleeps there, this thread does not watch the socket: the sleeper takes
     * the frames for every link whenever it wakes ({@link #takeData()}), waking their sleepers as this thread would,
     * and gives the socket back ({@link #releaseDataSleep()}) before its wait ends; the ring keeps what came
     * meanwhile, and the socket stays readable, so this thread finds it when it watches again. One thread at a time:
     * every frame would wake each thread that polls the socket.
     *
     * @return whether the caller may sleep on {@link EthPort#dataFd}
     */
    synchronized boolean claimDataSleep() {
        if (dataSleeper) {
            return false;
        }
        dataSleeper = true;
        watchData();
        return true;
    }

    /** The thread that {@linkplain #claimDataSleep() slept on the data socket} stopped waiting. */
    synchronized void releaseDataSleep() {
        dataSleeper = false;
        watchData();
    }

    /** Under {@code this}: watches the data socket while a link is armed and no app thread sleeps on it. */
    private void watchData() {
        boolean want = armedLinks > 0 && !dataSleeper;
        if (want != watchingData) {
            try {
                os.epollControl(epoll, want ? NativeOs.EPOLL_CTL_ADD : NativeOs.EPOLL_CTL_DEL, port.dataFd,
                        NativeOs.EPOLLIN, DATA);
                watchingData = want;
            } catch (IOException e) {
                SoviaLog.warnCounted("eth-epoll", "cannot change what the eth receiver watches", e);
            }
        }
    }

    @Override
    public String roleName() {
        return "sovia-eth-receiver";
    }

    @Override
    public int doWork() throws IOException {
        long now = System.nanoTime();
        int timeout = (int) Math.max(1, (nextBeat - now) / 1_000_000 + 1);
        int n = os.epollWait(epoll, readyData, readyEvents, timeout);
        for (int i = 0; i < n; i++) {
            if ((readyEvents[i] & NativeOs.EPOLLERR) != 0 && (readyData[i] == CONTROL || readyData[i] == DATA)) {
                interfaceFailed(readyData[i] == CONTROL ? port.controlFd : port.dataFd);
            }
            if (readyData[i] == CONTROL) {
                drainControl();
            } else if (readyData[i] == DATA) {
                takeData();
            } else if (readyData[i] == PROBE) {
                judgeSilent(System.nanoTime(), false);
            } else if (readyData[i] == LIVENESS) {
                liveness.acceptAll();
            } else {
                os.eventfdClear(wakeFd);
            }
        }
        now = System.nanoTime();
        if (now - nextBeat >= 0) {
            drainControl(); // what came in counts before anyone is buried
            beat(now);
            nextBeat = now + BEAT_NANOS;
        }
        return n;
    }

    /**
     * The data socket turned readable for whoever watched it: this thread, or the app thread that sleeps on it
     * ({@link #claimDataSleep()}). While another thread pumps, the ring stays readable: waiting again at once would
     * spin, on the core that thread may need to finish (10 ping-pong threads on one core: 6,700 pings a second). In
     * batches, waiting a millisecond at most: see {@link EthPort#pumpAfterOthers(int, long)}. Readable with an
     * empty ring, the socket has an error to take.
     */
    void takeData() {
        if (port.ready()) {
            port.pumpAfterOthers(DATA_BATCH, PUMP_WAIT_NANOS);
            return;
        }
        try {
            interfaceFailed(port.dataFd);
        } catch (IOException e) {
            SoviaLog.warnCounted("eth-interface", "cannot take the eth data socket's error", e);
        }
    }

    /**
     * A packet socket's interface went down or away: its error is taken (epoll reports it until then, which kept this
     * thread spinning), and said once. Peers then fall silent and are probed, so links over a lost interface reset.
     */
    private void interfaceFailed(int fd) throws IOException {
        int errno = port.os.takeError(fd);
        if (errno != 0) {
            SoviaLog.warnCounted("eth-interface", "interface " + port.nic.name() + " failed (errno " + errno
                    + ", down or gone): connections whose peers cannot be reached any more reset", null);
        }
    }

    private void drainControl() throws IOException {
        int length;
        while ((length = port.os.receive(port.controlFd, in, 0, in.capacity())) >= 0) {
            onControl(length);
        }
    }

    private void onControl(int length) {
        if (length < EthFrameDescriptor.HEADER_LENGTH || EthFrameDescriptor.version(in, 0) != EthFrameDescriptor.VERSION
                || EthFrameDescriptor.HEADER_LENGTH + EthFrameDescriptor.payloadLength(in, 0) > length) {
            SoviaStats.dropped("eth-malformed");
            return;
        }
        long mac = EthFrameDescriptor.sourceMac(in, 0);
        HostTable.Host host = port.table.byMac(mac);
        if (host == null) {
            SoviaStats.dropped("eth-unknown-host");
            return;
        }
        int instance = EthFrameDescriptor.sourceInstance(in, 0);
        EthPeer known = port.peer(instance);
        if (known != null && known.mac == mac) {
            known.lastHeardNanos = System.nanoTime();
            known.livenessPort = EthFrameDescriptor.livenessPort(in, 0);
        }
        byte kind = EthFrameDescriptor.kind(in, 0);
        if (kind == EthFrameDescriptor.HELLO) {
            hello(host, instance);
            return;
        }
        if (kind == EthFrameDescriptor.BEAT) {
            return;
        }
        EthLink link = port.link(EthFrameDescriptor.destinationLink(in, 0));
        if (kind == EthFrameDescriptor.HELLO_OK) {
            answer(link, mac, instance);
        } else if (link == null) {
            // both ends closing at once each tell the other, which is gone already; a nudge can cross a close too
            SoviaStats.dropped(kind == EthFrameDescriptor.GONE ? "eth-gone-late" : "eth-unknown-link");
        } else if (!link.sentBy(in, 0)) {
            SoviaStats.dropped("eth-stray");
        } else if (kind == EthFrameDescriptor.NUDGE) {
            link.nudged();
        } else if (kind == EthFrameDescriptor.GONE) {
            link.peerGone();
        } else {
            SoviaStats.dropped("eth-malformed");
        }
    }

    private void hello(HostTable.Host host, int instance) {
        if (EthFrameDescriptor.payloadLength(in, 0) != EthFrameDescriptor.HELLO_PAYLOAD || instance == 0) {
            SoviaStats.dropped("eth-malformed");
            return;
        }
        InetAddress client = EthAddresses.read(in, EthFrameDescriptor.HEADER_LENGTH);
        if (!client.equals(host.ip())) {
            SoviaStats.dropped("eth-unknown-host"); // a listed MAC claiming another host's address
            return;
        }
        EthListener listener = port.listeners.get(EthFrameDescriptor.destinationPort(in, 0));
        if (listener == null) {
            return; // another JVM of this host may listen there; only the one that does answers
        }
        EthPeer peer = port.acquirePeer(host.mac(), instance, EthFrameDescriptor.livenessPort(in, 0));
        if (peer == null) {
            SoviaStats.dropped("eth-stray");
            return;
        }
        listener.onHello(peer, EthFrameDescriptor.sourceLink(in, 0),
                new InetSocketAddress(client, EthFrameDescriptor.sourcePort(in, 0)),
                EthAddresses.read(in, EthFrameDescriptor.HEADER_LENGTH + 16));
    }

    private void answer(EthLink link, long mac, int instance) {
        if (link == null) {
            answeredLate(mac, instance);
            return;
        }
        if (link.peerMac != mac || link.remotePort != EthFrameDescriptor.sourcePort(in, 0)
                || link.localPort != EthFrameDescriptor.destinationPort(in, 0)) {
            SoviaStats.dropped("eth-stray");
            return;
        }
        EthPeer peer = port.acquirePeer(mac, instance, EthFrameDescriptor.livenessPort(in, 0));
        if (peer != null && !link.answered(peer, EthFrameDescriptor.sourceLink(in, 0))) {
            port.releasePeer(peer);
        }
    }

    /**
     * An answer for a client link this JVM no longer has: it stopped waiting ({@code sovia.eth.connect.millis}) and
     * connected over TCP. The listener's link is told it is gone, so no accept claims it, and the destination is
     * accelerated after all, so the next connect there asks again instead of keeping to TCP.
     */
    private void answeredLate(long mac, int instance) {
        SoviaStats.dropped("eth-answer-too-late");
        int serverPort = EthFrameDescriptor.sourcePort(in, 0);
        port.sendControl(EthFrameDescriptor.GONE, mac, serverPort, EthFrameDescriptor.destinationPort(in, 0), instance,
                EthFrameDescriptor.sourceLink(in, 0), EthFrameDescriptor.destinationLink(in, 0), null);
        port.lateAnswer.accept(port.table.byMac(mac), serverPort);
    }

    private void beat(long now) throws IOException {
        judgeSilent(now, true); // first: a lap of the ring (a stream's) can take milliseconds
        port.pump(); // frames nobody polled for a while: acknowledgements and data still count
        SoviaStats.dropped("eth-ring-overflow", port.os.drops(port.dataFd) + port.os.drops(port.controlFd));
        for (EthListener listener : port.listeners.values()) {
            listener.sweep(now);
        }
        port.forEachLink(EthLink::serviceIfIdle);
    }

    /**
     * Probes each peer silent too long, buries those found gone, forgets the probes of peers heard from again and,
     * on a beat, beats to every peer still alive.
     */
    private void judgeSilent(long now, boolean beat) {
        for (EthPeer peer : port.peers()) {
            if (now - peer.lastHeardNanos <= deadNanos) {
                liveness.end(peer);
            } else {
                HostTable.Host host = port.table.byMac(peer.mac);
                switch (liveness.check(peer, host.ip(), now, this::watchProbe)) {
                    case DEAD -> {
                        bury(peer);
                        continue;
                    }
                    case ALIVE -> peer.lastHeardNanos = now; // paused (a collection, a debugger), not gone
                    case PENDING -> { }
                }
            }
            if (beat) {
                port.sendControl(EthFrameDescriptor.BEAT, peer.mac, 0, 0, peer.instance, 0, 0, null);
            }
        }
    }

    private void watchProbe(int fd) {
        try {
            os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, fd, NativeOs.EPOLLOUT, PROBE);
        } catch (IOException e) {
            SoviaLog.warnCounted("eth-epoll", "cannot watch a liveness probe; the next beat looks at it", e);
        }
    }

    private void bury(EthPeer peer) {
        peer.dead = true;
        port.forget(peer);
        SoviaLog.info("eth peer " + EthFrameDescriptor.formatMac(peer.mac) + " (instance "
                + Integer.toHexString(peer.instance) + ") is gone (silent, and its host refused or ignored a probe): "
                + "its connections are reset");
        port.forEachLink(link -> {
            if (link.peer() == peer) {
                link.peerGone();
            }
        });
    }
}
