package io.sovia.shm;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.DoorbellSleep;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-JVM doorbell agent, under the {@code Lifecycle}: one epoll set over the UNIX socket of every shared-memory
 * connection, driven through the native calls rather than a JDK selector, because any thread may change what it
 * watches with one {@code epoll_ctl}, taking effect at once, where a JDK selector must be woken for every change.
 *
 * <p>It always watches for the peer's end (its process died or it closed the connection): the link is then marked
 * dead at once, which the survivor's next call reports as "Connection reset". It reads rings only while the link
 * has a sleeper that cannot watch the socket itself ({@link RingLink#hasBlindSleepers()}: a parked virtual thread,
 * the service thread's credit waker); selectors and sleeping platform threads watch it in their own epoll, so a
 * ring wakes one thread, not also this one (which on two cores cost a second wake-up per ring, ~60 us). A nudge
 * (a writer blocked for credit makes the reader's side poll) whose doorbell byte nobody reads is answered within
 * {@value #NUDGE_LOOK_MILLIS} ms, when this agent looks for the requests the rings carry (a flag each, in shared
 * memory: a look at a thousand connections costs about a microsecond).
 */
final class ShmDoorbells implements Agent {
    /** The agent sleeps in epoll, never in its idle strategy. */
    private static final IdleStrategy NO_IDLE = new NoOpIdleStrategy();
    /** How often the listeners' hellos are swept (ShmListener.sweepAll). */
    private static final int SWEEP_MILLIS = 1000;
    /** How often, while connections are watched, the rings are looked at for nudges nobody read. */
    private static final int NUDGE_LOOK_MILLIS = 100;
    /** The epoll data of the eventfd that wakes the agent to stop; connections count from 1. */
    private static final long WAKE = 0;
    private static final int PEER_GONE = NativeOs.EPOLLRDHUP | NativeOs.EPOLLHUP | NativeOs.EPOLLERR;
    private static final int BATCH = 64;

    private static volatile ShmDoorbells instance;

    private final NativeOs os;
    /**
     * Never closed: any thread may still call epoll_ctl on it until the JVM is gone, and a closed number could by
     * then name another file. One per JVM.
     */
    private final int epoll;
    private final int wakeFd;
    private final Map<Long, Watched> watched = new ConcurrentHashMap<>();
    /** Kept connections' sockets ({@link #watchHangUp}), with what runs when their peer closes them. */
    private final Map<Long, Runnable> hangUps = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(WAKE);
    /** The agent's thread only. */
    private final long[] readyData = new long[BATCH];
    private final int[] readyEvents = new int[BATCH];
    private long nextSweep = System.nanoTime();

    private ShmDoorbells() throws IOException {
        this.os = NativeAccess.os();
        this.epoll = os.epollCreate();
        try {
            this.wakeFd = os.eventfdCreate();
            os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, wakeFd, NativeOs.EPOLLIN, WAKE);
        } catch (IOException e) {
            os.closeFd(epoll);
            throw e;
        }
        Lifecycle.start(this, NO_IDLE, () -> os.eventfdSignal(wakeFd));
    }

    static ShmDoorbells get() throws IOException {
        ShmDoorbells d = instance;
        if (d == null) {
            synchronized (ShmDoorbells.class) {
                d = instance;
                if (d == null) {
                    d = new ShmDoorbells();
                    instance = d;
                }
            }
        }
        return d;
    }

    /** Who may keep a closed connection's socket and segment for the next connection. */
    interface Keeper {
        /** Takes both and returns true, or leaves them to be closed. */
        boolean keep(SocketChannel unix, ShmSegment segment);
    }

    /**
     * Watches {@code channel} (made non-blocking here) for {@code link} over {@code segment}; runs {@code onDeath}
     * if the peer dies without having closed the connection. Closing the result, once the link is closed, stops
     * watching and hands the channel and the segment to {@code keeper}, or closes the channel and releases the
     * segment.
     */
    Watched watch(SocketChannel channel, RingLink link, ShmSegment segment, Runnable onDeath, Keeper keeper)
            throws IOException {
        channel.configureBlocking(false);
        Watched w = new Watched(ids.incrementAndGet(), channel, link, segment, onDeath, keeper);
        watched.put(w.id, w);
        try {
            w.start();
        } catch (IOException e) {
            watched.remove(w.id);
            throw e;
        }
        return w;
    }

    /**
     * Runs {@code onHangUp} on this agent's thread once the peer closes {@code channel}, a kept connection's socket
     * that nobody reads now: its peer let it go or died, and its descriptor and memory go at once rather than at the
     * next sweep. Returns the registration, for {@link #unwatchHangUp}.
     */
    long watchHangUp(SocketChannel channel, Runnable onHangUp) throws IOException {
        long id = ids.incrementAndGet();
        hangUps.put(id, onHangUp);
        try {
            os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, JdkNio.fd(channel), NativeOs.EPOLLRDHUP, id);
        } catch (IOException e) {
            hangUps.remove(id);
            throw e;
        }
        return id;
    }

    /** Stops watching a kept connection's socket, before it carries a connection again or closes. */
    void unwatchHangUp(long id, SocketChannel channel) {
        if (hangUps.remove(id) != null) {
            try {
                os.epollControl(epoll, NativeOs.EPOLL_CTL_DEL, JdkNio.fd(channel), 0, id);
            } catch (IOException ignored) {
                // a closed socket left the set by itself
            }
        }
    }

    @Override
    public String roleName() {
        return "sovia-doorbells";
    }

    /**
     * Sleeps in epoll until a watched socket needs an answer, the agent must stop, a look for nudges nobody read is
     * due, or a sweep (hellos, selectors of ended threads).
     */
    @Override
    public int doWork() throws IOException {
        int n = os.epollWait(epoll, readyData, readyEvents, watched.isEmpty() ? SWEEP_MILLIS : NUDGE_LOOK_MILLIS);
        long now = System.nanoTime();
        if (now - nextSweep >= 0) {
            nextSweep = now + SWEEP_MILLIS * 1_000_000L;
            ShmListener.sweepAll();
            ShmChannelPool.KEPT.sweep();
            DoorbellSleep.releaseEnded();
        }
        watched.values().forEach(w -> w.link.pollIfWanted());
        for (int i = 0; i < n; i++) {
            if (readyData[i] == WAKE) {
                os.eventfdClear(wakeFd);
                continue;
            }
            Watched w = watched.get(readyData[i]);
            if (w != null) {
                w.answer(readyEvents[i]);
            } else {
                Runnable hungUp = hangUps.get(readyData[i]);
                if (hungUp != null) {
                    hungUp.run();
                }
            }
        }
        return n;
    }

    /** One watched connection; its epoll registration changes under its own monitor. */
    final class Watched implements AutoCloseable {
        private final long id;
        private final SocketChannel channel;
        private final RingLink link;
        private final ShmSegment segment;
        private final Runnable onDeath;
        private final Keeper keeper;
        /** Under this. */
        private int fd;
        private int events;
        private boolean stopped;
        /** Set by the agent's thread when it saw the peer go. */
        private volatile boolean peerGone;

        private Watched(long id, SocketChannel channel, RingLink link, ShmSegment segment, Runnable onDeath,
                Keeper keeper) {
            this.keeper = keeper;
            this.id = id;
            this.channel = channel;
            this.link = link;
            this.segment = segment;
            this.onDeath = onDeath;
        }

        private synchronized void start() throws IOException {
            fd = JdkNio.fd(channel);
            events = wanted();
            os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, fd, events, id);
            link.onBlindSleepersChanged(this::update);
            update();
        }

        private int wanted() {
            return link.hasBlindSleepers() ? NativeOs.EPOLLIN | NativeOs.EPOLLRDHUP : NativeOs.EPOLLRDHUP;
        }

        /** Reads rings exactly while the link has sleepers that cannot. */
        private synchronized void update() {
            int want = wanted();
            if (stopped || want == events) {
                return;
            }
            try {
                os.epollControl(epoll, NativeOs.EPOLL_CTL_MOD, fd, want, id);
                events = want;
            } catch (IOException e) {
                SoviaLog.warnCounted("shm-doorbell-watch", "cannot change what the doorbell thread watches", e);
            }
        }

        private void answer(int ready) {
            if ((ready & PEER_GONE) == 0 && link.drainDoorbell()) {
                link.wake();
                return;
            }
            peerGone = true;
            stop();
            // clean up first: the woken survivor may exit at once; a peer that closed in order is not dead
            if (!link.peerClosed()) {
                onDeath.run();
            }
            link.peerDied();
        }

        /** Unregisters before the descriptor can close, so its number never names another file here. */
        private synchronized void stop() {
            if (!stopped) {
                stopped = true;
                watched.remove(id);
                try {
                    os.epollControl(epoll, NativeOs.EPOLL_CTL_DEL, fd, 0, id);
                } catch (IOException ignored) {
                    // its socket is closing anyway, which also removes it
                }
            }
        }

        /**
         * The connection ended here: a peer that is alive may get the socket and segment for its next connection
         * (the keeper registers them before this end's release, after which the peer may reuse them); a dead or
         * corrupting one's go.
         */
        @Override
        public void close() {
            stop();
            if (!peerGone && link.detachDoorbell() && keeper.keep(channel, segment)) {
                segment.releaseKept();
                return;
            }
            ShmTransport.closeQuietly(channel);
            segment.release(peerGone);
        }
    }
}
